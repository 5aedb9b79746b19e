package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

func init() {
	register("health", "exit 0 if URL answers 200 (container healthchecks)", runHealth)
}

func runHealth(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: newsctl health URL")
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", args[0], resp.Status)
	}
	return nil
}
