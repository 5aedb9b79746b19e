package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/newscrawl/newscrawl/internal/modelclient"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Error types of model failures, as written to dead letters and metrics.
const (
	ErrTypeUnavailable   = "model_unavailable"  // 5xx, connection refused, reset
	ErrTypeTimeout       = "model_timeout"      // no answer within Config.Timeout
	ErrTypeRejected      = "model_rejected"     // a 4xx that will never succeed
	ErrTypeBadResponse   = "model_bad_response" // 200 with an unreadable body or no choices
	ErrTypeSchemaInvalid = "schema_invalid"     // still invalid after one repair
	ErrTypeTruncated     = "output_truncated"   // finish_reason length even with half the input
	ErrTypeRateLimited   = "rate_limited"       // 429 or the local limiter
)

// isClientError reports a 4xx that retrying unchanged cannot fix (and that
// may mean the server does not support the requested output mode).
func isClientError(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity,
		http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType:
		return true
	}
	return false
}

// classify turns a failed call into a streamkit-classified error. parent is
// the handler's context: when it is done, its error is returned unchanged
// so streamkit can tell a shutdown or handler timeout apart.
func (p *Provider) classify(parent context.Context, err error, rec *modelclient.Response) error {
	if parent.Err() != nil {
		return fmt.Errorf("model call cancelled: %w", context.Cause(parent))
	}
	var wait *WaitError
	if errors.As(err, &wait) {
		return streamkit.RetryAfter(wait.Delay, err)
	}
	status := modelclient.Status(err, rec)
	msg := modelclient.Message(err)
	switch {
	case status == http.StatusTooManyRequests: // still limited after call's own waits
		d := rec.RetryAfter(time.Now(), DefaultRateLimitDelay, MaxRateLimitDelay)
		p.cfg.Limiter.Pause(d)
		p.log.Warn("model server rate-limited the stage", "retry_after", d.String(), "message", msg)
		return streamkit.RetryAfter(d, fmt.Errorf("model server answered 429 (retry after %s): %s", d, msg))
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return streamkit.Retryable(ErrTypeTimeout, fmt.Errorf("model server timed out (HTTP %d): %s", status, msg))
	case status >= 500:
		return streamkit.Retryable(ErrTypeUnavailable, fmt.Errorf("model server error (HTTP %d): %s", status, msg))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// Configuration, not the document: pause the stage until it is fixed.
		return streamkit.Unavailable(Dependency, fmt.Errorf("model server refused the credentials (HTTP %d): %s; check OPENAI_API_KEY", status, msg))
	case status == http.StatusNotFound:
		p.modelMissing.Store(true)
		return streamkit.Unavailable(Dependency, fmt.Errorf("model %q or endpoint not found (HTTP 404): %s; check EXTRACT_MODEL and OPENAI_BASE_URL (…/v1)", p.cfg.Model, msg))
	case status >= 400:
		return streamkit.Permanent(ErrTypeRejected, fmt.Errorf("model server rejected the request (HTTP %d): %s", status, msg))
	case isTimeout(err):
		return streamkit.Retryable(ErrTypeTimeout, fmt.Errorf("no answer from the model within %s: %w", p.cfg.Timeout, err))
	case status >= 200 && status < 300:
		return streamkit.Retryable(ErrTypeBadResponse, fmt.Errorf("unreadable model response: %w", err))
	}
	if status == 0 && modelclient.Unreachable(err) {
		return streamkit.Unavailable(Dependency, fmt.Errorf("model server %s is not answering: %w; is it started?", p.cfg.BaseURL, err))
	}
	return streamkit.Retryable(ErrTypeUnavailable, fmt.Errorf("model server unreachable: %w", err))
}

// Dependency names the model server among the stage's dependencies: an
// error that means it is away, misconfigured or not serving the model is
// streamkit.Unavailable(Dependency, …), and the stage pauses on it.
const Dependency = "model"

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
