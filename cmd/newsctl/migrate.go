package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
)

// runMigrate applies every pending migration, or with --to takes the schema
// up or down to a version, or with --status says where it stands. Going down
// is refused below the schema a running worker reports needing (a worker
// that reports none, an older release, counts as needing today's), unless
// --force; docs/OPERATIONS.md has the procedure.
func runMigrate(ctx context.Context, args []string) error {
	s, c := settings("migrate")
	fs := s.FlagSet()
	to := fs.String("to", "", "take the schema up or down to this version (see --status); default: up to the newest this newsctl holds")
	status := fs.Bool("status", false, "print the schema version, the one this newsctl expects, and whether each applied step can be undone")
	force := fs.Bool("force", false, "with --to, go down even below what the running workers report needing")
	if err := s.Parse(args); err != nil {
		return err
	}
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	switch {
	case *status:
		return migrateStatus(ctx, pool)
	case *to != "":
		target, err := strconv.ParseInt(*to, 10, 64)
		if err != nil || target < 0 || target > store.Latest() {
			return fmt.Errorf("--to %q: want a schema version from 0 to %d (newsctl migrate --status lists them)", *to, store.Latest())
		}
		current, err := store.Version(ctx, pool)
		if err != nil {
			return err
		}
		if target < current && !*force {
			if err := workersAllow(ctx, c, target); err != nil {
				return err
			}
		}
		done, err := store.MigrateTo(ctx, pool, target)
		if err != nil {
			return err
		}
		fmt.Printf("schema version %d → %d (%d step(s): %v)\n", current, target, len(done), done)
		return nil
	}
	applied, err := store.Migrate(ctx, pool)
	if err != nil {
		return err
	}
	v, err := store.Version(ctx, pool)
	if err != nil {
		return err
	}
	fmt.Printf("migrations applied: %d; schema version %d\n", len(applied), v)
	return nil
}

// workersAllow refuses a schema below what a running worker needs: the
// version in its status record, or today's for one that reports none.
func workersAllow(ctx context.Context, c config.Common, target int64) error {
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return fmt.Errorf("%w (the running workers' versions are read from Redis; --force goes down without them)", err)
	}
	defer rdb.Close()
	admin := adminOf(rdb, c)
	for _, st := range pipeline.Stages() {
		consumers, err := admin.Consumers(ctx, st.Stage)
		if err != nil {
			return err
		}
		for _, w := range consumers {
			need, err := strconv.ParseInt(w.Settings[app.StatusSchema], 10, 64)
			if err != nil {
				return fmt.Errorf("worker %s (%s) reports no schema version (an older release): stop it before going down to %d, or --force", w.Consumer, st.Stage, target)
			}
			if need > target {
				return fmt.Errorf("worker %s (%s, release %s) needs schema version %d: stop it before going down to %d, or --force",
					w.Consumer, st.Stage, w.Settings[app.StatusRelease], need, target)
			}
		}
	}
	return nil
}

func migrateStatus(ctx context.Context, pool *pgxpool.Pool) error {
	current, err := store.Version(ctx, pool)
	if err != nil {
		return err
	}
	steps, err := store.Steps(ctx, pool)
	if err != nil {
		return err
	}
	fmt.Printf("schema version %d; this newsctl expects %d\n", current, store.Latest())
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		state := "not applied"
		if st.Applied {
			state = "applied; back to " + strconv.FormatInt(st.Version-1, 10) + ": reversible"
			if st.Irreversible != "" {
				state = "applied; irreversible: " + st.Irreversible
			}
		}
		fmt.Printf("  %5d  %-36s %s\n", st.Version, st.Name, state)
	}
	if current > store.Latest() {
		return errors.New("the schema is newer than this newsctl: use the newer release's newsctl to go down")
	}
	return nil
}
