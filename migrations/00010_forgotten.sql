-- Documents removed by `newsctl forget` (takedowns, retention). Owned by
-- internal/forget. A row here makes every stage drop a message still in
-- flight for the document instead of storing it again or dead-lettering it.

-- +goose Up
CREATE TABLE forgotten (
    doc_id       text PRIMARY KEY,
    url          text NOT NULL DEFAULT '',
    reason       text NOT NULL DEFAULT '',   -- takedown, retention, ...
    forgotten_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE forgotten;
