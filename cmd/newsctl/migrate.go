package main

import (
	"context"
	"fmt"

	"github.com/newscrawl/newscrawl/internal/store"
)

func runMigrate(ctx context.Context, args []string) error {
	s, c := settings("migrate")
	if err := s.Parse(args); err != nil {
		return err
	}
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
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
