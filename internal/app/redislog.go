package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// RouteRedisLogs sends go-redis' own log lines (a failed dial, a pool
// error) into log at debug level: during an outage they would repeat
// several times a second, and the dependency's breaker already says, once,
// that Redis is away.
func RouteRedisLogs(log *slog.Logger) { redis.SetLogger(redisLogger{log}) }

type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...interface{}) {
	l.log.Debug("go-redis: " + fmt.Sprintf(format, v...))
}
