package crawl

import (
	"errors"
	"net/http"

	"github.com/nlnwa/gowarc/v3"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

// archiveFetch writes one fetch to the crawler's WARC files (Config.WARCDir)
// and, for a page to store, notes where its record went. It runs before the
// commit: a request run again after a crash (or a failed commit) is
// archived again, so an archive may hold a capture twice; the document
// points at the last. A write that fails is logged and the crawl goes on:
// the archive is a copy, the database the record.
func (c *Crawler) archiveFetch(resp *fetch.Response, prev prior, o *outcome, fetchErr error) {
	if c.warc == nil || resp == nil || resp.Sent.IsZero() {
		return
	}
	f := archive.Fetch{URL: resp.FinalURL, Date: resp.Sent, IP: resp.IP, RequestHeader: resp.RequestHeader,
		Status: resp.Status, Proto: resp.Proto, Header: resp.Header, Body: resp.Body}
	switch {
	case errors.Is(fetchErr, fetch.ErrTooLarge):
		f.Body, f.Truncated = nil, "length" // the body cap cut it: nothing of it is kept
	case o != nil && o.State == StateNotModified:
		f.Revisit = gowarc.ProfileServerNotModifiedV1_1
	case o != nil && o.BodyHash != "" && o.BodyHash == prev.BodyHash: // the body stored last time
		f.Revisit = gowarc.ProfileIdenticalPayloadDigestV1_1
	case resp.Body == nil && resp.Status != http.StatusNoContent && resp.Header.Get("Content-Length") != "0":
		f.Truncated = "unspecified" // an answer whose body is not read (an error, a redirect, a type not crawled)
	}
	loc, err := c.warc.Write(f)
	if err != nil {
		c.log.Error("archive a fetch", "url", f.URL, "err", err)
		return
	}
	c.metrics.archived.Inc()
	if o != nil && o.Doc != nil && f.Revisit == "" {
		o.Doc.WARC = &loc
		o.Doc.Captured = resp.Sent
	}
}

// Close closes the crawler's WARC files, if it writes any.
func (c *Crawler) Close() error {
	if c.warc == nil {
		return nil
	}
	return c.warc.Close()
}
