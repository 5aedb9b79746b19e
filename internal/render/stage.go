package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// DefaultTries is how many renders a page gets before its static version
// stands, labelled with the reason.
const DefaultTries = 3

// Version names the renderer in its idempotency keys.
const Version = "render-v1"

// Key is the stage's streamkit.KeyFunc: render:doc_id:body_hash:version.
var Key = pipeline.HashKey(pipeline.FieldBodyHash)

// A Stage renders the pages the cleaner sends it and sends their DOM back
// to the cleaner; it is the renderer's streamkit handler. What the browser
// does is never the message's fault: a render that fails Tries times leaves
// the static page as it was cleaned, with the reason in the rendered table
// — no dead letter. Only a message naming no stored page is one.
type Stage struct {
	db      *pgxpool.Pool
	r       *Renderer
	tries   int
	log     *slog.Logger
	pages   *prometheus.CounterVec
	refused *prometheus.CounterVec
	seconds prometheus.Histogram
}

// NewStage returns the renderer's handler over db. reg may be nil.
func NewStage(db *pgxpool.Pool, r *Renderer, tries int, reg prometheus.Registerer, log *slog.Logger) *Stage {
	if tries <= 0 {
		tries = DefaultTries
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stage{db: db, r: r, tries: tries, log: log,
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "render", Name: "pages_total",
			Help: "Pages rendered, or left static by the reason the last try failed."}, []string{"outcome"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "render", Name: "refused_requests_total",
			Help: "Requests of the browser the renderer's proxy refused, by reason."}, []string{"reason"}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "newscrawl", Subsystem: "render", Name: "seconds",
			Help: "Wall time of one render, politeness waits included.", Buckets: prometheus.ExponentialBuckets(0.25, 2, 8)}),
	}
	for _, o := range []string{"rendered", FailDeadline, FailCrashed, FailDOMSize, FailNavigation, FailStart} {
		s.pages.WithLabelValues(o)
	}
	for _, r := range []string{RefusedScope, RefusedScheme, RefusedRobots, RefusedGuard, RefusedBytes} {
		s.refused.WithLabelValues(r)
	}
	if reg != nil {
		reg.MustRegister(s.pages, s.refused, s.seconds, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "newscrawl",
			Subsystem: "render", Name: "browser_memory_bytes", Help: "Memory of the browser's processes together (proportional set: shared pages once), read at each scrape."},
			func() float64 { return float64(r.BrowserMemory()) }))
	}
	return s
}

// Handle renders the page the message names.
func (s *Stage) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	docID, err := m.Require(pipeline.FieldDocID)
	if err != nil {
		return streamkit.Result{}, err
	}
	want, err := pipeline.MessageHash(m, pipeline.FieldBodyHash)
	if err != nil {
		return streamkit.Result{}, err
	}
	var pageURL, bodyHash, renderedHash string
	err = s.db.QueryRow(ctx, `SELECT d.url, d.body_hash, coalesce(r.rendered_hash, '') FROM documents d
		LEFT JOIN rendered r ON r.doc_id = d.doc_id AND r.body_hash = d.body_hash WHERE d.doc_id = $1`, docID).
		Scan(&pageURL, &bodyHash, &renderedHash)
	if errors.Is(err, pgx.ErrNoRows) {
		switch gone, ferr := forget.Was(ctx, s.db, docID); {
		case ferr != nil:
			return streamkit.Result{}, streamkit.Retryable("database", ferr)
		case gone:
			return streamkit.Result{}, nil
		}
		return streamkit.Result{}, streamkit.Permanent("missing_input", fmt.Errorf("document %s is not in the documents table", docID))
	}
	if err != nil {
		return streamkit.Result{}, streamkit.Retryable("database", fmt.Errorf("load document %s: %w", docID, err))
	}
	if bodyHash != want {
		s.log.Info("document changed since this message; skipping", "doc_id", docID)
		return streamkit.Result{DocID: docID}, nil
	}
	if renderedHash != "" { // rendered before (a replay): send the DOM on again, no second render
		return streamkit.Result{DocID: docID, Emit: []streamkit.Emit{cleanMessage(docID, renderedHash, pageURL)}}, nil
	}

	rec := &crawl.Rendered{DocID: docID, BodyHash: bodyHash}
	outcome := "rendered"
	for rec.Tries < s.tries {
		rec.Tries++
		p, err := s.r.Render(ctx, pageURL)
		if ctx.Err() != nil { // shutdown or the handler's timeout: not the page's fault, back later
			return streamkit.Result{}, streamkit.Retryable("interrupted", fmt.Errorf("render %s: %w", pageURL, ctx.Err()))
		}
		if p != nil {
			rec.Requests, rec.Refused, rec.Bytes, rec.Took = p.Requests, p.RefusedTotal(), p.Bytes, p.Took
			s.seconds.Observe(p.Took.Seconds())
			for why, n := range p.Refused {
				s.refused.WithLabelValues(why).Add(float64(n))
			}
		}
		if err == nil {
			outcome, rec.Body, rec.Hash, rec.Error = "rendered", p.HTML, pipeline.BodyHash(p.HTML), ""
			break
		}
		var f *Failure
		if !errors.As(err, &f) {
			f = &Failure{Reason: FailNavigation, Retry: true, Err: err}
		}
		outcome, rec.Error = f.Reason, f.Reason+": "+f.Err.Error()
		s.log.Warn("render failed", "doc_id", docID, "url", pageURL, "try", rec.Tries, "reason", f.Reason, "err", f.Err)
		if !f.Retry {
			break
		}
	}
	var stored bool
	return streamkit.Result{DocID: docID, Commit: func(ctx context.Context, tx pgx.Tx) error {
		var err error
		stored, err = crawl.StoreRendered(ctx, tx, rec)
		return err
	}, EmitFunc: func() []streamkit.Emit {
		s.pages.WithLabelValues(outcome).Inc()
		if !stored || rec.Hash == "" {
			return nil // the page changed meanwhile, or the static version stands
		}
		return []streamkit.Emit{cleanMessage(docID, rec.Hash, pageURL)}
	}}, nil
}

// cleanMessage sends a rendered DOM back to the cleaner.
func cleanMessage(docID, renderedHash, pageURL string) streamkit.Emit {
	return streamkit.Emit{Stage: pipeline.Clean, Fields: map[string]string{pipeline.FieldDocID: docID,
		pipeline.FieldBodyHash: renderedHash, pipeline.FieldURL: pageURL, pipeline.FieldRendered: "1"}}
}

// compile-time: the stage is a streamkit handler.
var _ streamkit.Handler = (*Stage)(nil)
