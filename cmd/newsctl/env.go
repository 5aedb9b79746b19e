package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// settings binds the shared settings onto a subcommand's flag set.
func settings(name string) (*config.Set, config.Common) {
	s := config.NewSet(flag.NewFlagSet("newsctl "+name, flag.ContinueOnError))
	return s, config.BindCommon(s, "")
}

// connect opens Redis and Postgres for a subcommand; close releases both.
func connect(ctx context.Context, c config.Common, conns int) (rdb redis.UniversalClient, pool *pgxpool.Pool, close func(), err error) {
	rdb, pool, err = app.Connect(ctx, c, conns)
	if err != nil {
		return nil, nil, nil, err
	}
	return rdb, pool, func() { pool.Close(); rdb.Close() }, nil
}

// redisOnly opens Redis alone, for subcommands that never touch Postgres.
func redisOnly(ctx context.Context, c config.Common) (redis.UniversalClient, error) {
	rdb, addr, err := app.NewRedis(c)
	if err != nil {
		return nil, err
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("connect redis %s: %w", addr, err)
	}
	return rdb, nil
}

// adminOf is the operator's view of every stage and partition under c's settings.
func adminOf(rdb redis.UniversalClient, c config.Common) *streamkit.Admin {
	return &streamkit.Admin{RDB: rdb, Prefix: *c.StreamPrefix, Partitions: c.Partitions()}
}

// producer publishes to each document's partition, holding back while a
// stage has highWater or more waiting (0: never).
func producer(rdb redis.UniversalClient, c config.Common, highWater int64) *streamkit.Producer {
	return streamkit.NewProducer(rdb, *c.StreamPrefix, highWater).WithPartitions(c.Partitions())
}

// positional returns the arguments left after flags, parsing flags that
// follow them too (`newsctl forget URL --dry-run`): the flag package stops
// at the first argument, and a flag taken for an argument would be ignored.
func positional(fs *flag.FlagSet) ([]string, error) {
	var args []string
	for rest := fs.Args(); len(rest) > 0; rest = fs.Args() {
		args = append(args, rest[0])
		if err := fs.Parse(rest[1:]); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// bindSearch binds the searcher's settings; call the result after Parse.
func bindSearch(s *config.Set) func() search.Config {
	ef := s.IntRange("SEARCH_EF_SEARCH", 0, 0, 1000,
		"hnsw.ef_search floor of vector queries (higher: better recall, slower); 0 sizes it to the table: 100 up to 100,000 chunks, 316 at a million")
	return func() search.Config { return search.Config{EfSearch: *ef} }
}
