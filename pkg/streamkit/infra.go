package streamkit

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// Errors are sorted at the edge into three kinds that are not the message's
// fault: a dependency that is away (pause, spend nothing), a conflict that
// goes away when the work is simply run again (retry at once), and — for
// anything that merely looks like the first kind — a suspicion that a probe
// of the dependencies settles.

// retryNow reports a transaction conflict (serialization failure,
// deadlock, a lock wait past lock_timeout): running the same work again at
// once is the cure, and no attempt is spent.
func retryNow(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01" || pg.Code == "55P03")
}

// postgresDown reports an error that says the database, not the work, is
// the problem: no connection, a server shutting down or starting up, too
// many connections.
func postgresDown(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"), // connection exception
			pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03", // admin/crash shutdown, cannot connect now
			pg.Code == "53300", pg.Code == "53000": // too many connections, insufficient resources
			return true
		}
		return false
	}
	return false
}

// redisDown reports a Redis reply that says the server cannot serve now.
func redisDown(err error) bool {
	if errors.Is(err, redis.ErrPoolTimeout) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"LOADING", "READONLY", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "MISCONF"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// suspect reports an error that may come from a dependency being away: a
// network failure, a broken connection, a timeout, or a reply that says so.
// Whether it does is decided by probing (Dependencies.Check), because a
// handler's own network calls (a crawler's fetch) fail the same way.
func suspect(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if postgresDown(err) || redisDown(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errHandlerTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		pgconn.Timeout(err) || strings.Contains(err.Error(), "conn closed")
}
