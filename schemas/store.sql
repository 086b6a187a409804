CREATE VIEW live_runs AS
    SELECT * FROM runs WHERE run_id NOT IN (SELECT run_id FROM run_retirements);

CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
BEGIN SELECT RAISE(ABORT, 'accounts are append-only: add a row for the name instead'); END;

CREATE TRIGGER accounts_no_update BEFORE UPDATE ON accounts
BEGIN SELECT RAISE(ABORT, 'accounts are append-only: add a row for the name instead'); END;

CREATE TRIGGER adaptive_pools_no_delete BEFORE DELETE ON adaptive_pools
BEGIN SELECT RAISE(ABORT, 'adaptive pools are kept as made: make a new pool instead'); END;

CREATE TRIGGER adaptive_pools_no_update BEFORE UPDATE ON adaptive_pools
BEGIN SELECT RAISE(ABORT, 'adaptive pools are kept as made: make a new pool instead'); END;

CREATE TRIGGER adjudications_no_delete BEFORE DELETE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only: retract the adjudicated judgment instead'); END;

CREATE TRIGGER adjudications_no_update BEFORE UPDATE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only: retract the adjudicated judgment instead'); END;

CREATE TRIGGER assessor_kinds_no_delete BEFORE DELETE ON assessor_kinds
BEGIN SELECT RAISE(ABORT, 'assessor kinds are append-only: set the kind again instead'); END;

CREATE TRIGGER assessor_kinds_no_update BEFORE UPDATE ON assessor_kinds
BEGIN SELECT RAISE(ABORT, 'assessor kinds are append-only: set the kind again instead'); END;

CREATE TRIGGER duplicate_findings_no_delete BEFORE DELETE ON duplicate_findings
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER duplicate_findings_no_update BEFORE UPDATE ON duplicate_findings
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER duplicate_members_no_delete BEFORE DELETE ON duplicate_members
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER duplicate_members_no_update BEFORE UPDATE ON duplicate_members
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER duplicate_splits_no_delete BEFORE DELETE ON duplicate_splits
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER duplicate_splits_no_update BEFORE UPDATE ON duplicate_splits
BEGIN SELECT RAISE(ABORT, 'duplicate findings and splits are append-only: find again, or split again'); END;

CREATE TRIGGER guidelines_no_delete BEFORE DELETE ON guidelines
BEGIN SELECT RAISE(ABORT, 'guidelines are append-only: set a new text instead'); END;

CREATE TRIGGER guidelines_no_update BEFORE UPDATE ON guidelines
BEGIN SELECT RAISE(ABORT, 'guidelines are append-only: set a new text instead'); END;

CREATE TRIGGER judgments_no_delete BEFORE DELETE ON judgments
BEGIN SELECT RAISE(ABORT, 'the judgment log is append-only: add a retraction instead'); END;

CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
BEGIN SELECT RAISE(ABORT, 'the judgment log is append-only: add a correction instead'); END;

CREATE TRIGGER judgments_retraction_rules BEFORE INSERT ON judgments
WHEN NEW.retracts IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM judgments j WHERE j.judgment_id = NEW.retracts AND j.grade IS NOT NULL
    AND j.topic = NEW.topic AND j.docno = NEW.docno)
BEGIN SELECT RAISE(ABORT, 'a retraction names a judgment of its topic and docno that is not itself a retraction'); END;

CREATE TRIGGER pool_rounds_record_runs AFTER INSERT ON pool_rounds
BEGIN
    INSERT INTO pool_round_runs(round_id, run_id)
    SELECT DISTINCT NEW.round_id, r.run_id FROM json_each(NEW.run_tags) t
    JOIN live_runs r ON r.run_tag = t.value;
END;

CREATE TRIGGER run_columns_no_delete BEFORE DELETE ON run_columns
BEGIN SELECT RAISE(ABORT, 'runs are kept as imported: replace or remove a run instead'); END;

CREATE TRIGGER run_columns_no_update BEFORE UPDATE ON run_columns
BEGIN SELECT RAISE(ABORT, 'runs are kept as imported: replace or remove a run instead'); END;

CREATE TRIGGER run_retirements_no_delete BEFORE DELETE ON run_retirements
BEGIN SELECT RAISE(ABORT, 'run retirements are append-only'); END;

CREATE TRIGGER run_retirements_no_update BEFORE UPDATE ON run_retirements
BEGIN SELECT RAISE(ABORT, 'run retirements are append-only'); END;

CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'runs are kept as imported: replace or remove a run instead'); END;

CREATE TRIGGER runs_no_update BEFORE UPDATE ON runs
BEGIN SELECT RAISE(ABORT, 'runs are kept as imported: replace or remove a run instead'); END;

CREATE TABLE "_sqlite_migrations" (
   "id" INTEGER PRIMARY KEY,
   "migration_set" TEXT,
   "name" TEXT,
   "applied_at" TEXT
);

CREATE TABLE accounts (
    account_id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('assessor', 'adjudicator', 'admin', 'disabled')),
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE adaptive_pools (
    pool_id INTEGER PRIMARY KEY REFERENCES pools(pool_id),
    strategy TEXT NOT NULL,          -- a strategy of pooltool.judging.strategies, e.g. 'mtf'
    params TEXT NOT NULL,            -- JSON object: the strategy's parameters, defaults filled in
    seed INTEGER NOT NULL,           -- the seed of a randomised strategy (thompson)
    budget INTEGER,                  -- documents chosen per topic at most; NULL: no limit
    level INTEGER NOT NULL,          -- the lowest grade the strategy counts as relevant
    created_at TEXT NOT NULL         -- UTC, ISO 8601
);

CREATE TABLE adjudications (
    judgment_id INTEGER NOT NULL REFERENCES judgments(judgment_id),
    resolves INTEGER NOT NULL REFERENCES judgments(judgment_id),
    PRIMARY KEY (judgment_id, resolves)
);

CREATE TABLE assessor_kinds (
    kind_id INTEGER PRIMARY KEY,
    assessor TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('person', 'machine')),  -- the latest row is in force
    origin TEXT NOT NULL,            -- what set it: import-qrels FILE, or the assessor-kind command
    set_at TEXT NOT NULL             -- UTC, ISO 8601
);

CREATE TABLE assignments (
    topic TEXT NOT NULL,
    assessor TEXT NOT NULL,
    role TEXT NOT NULL,              -- 'primary' | 'overlap' (a second judge for agreement)
    assigned_at TEXT NOT NULL,       -- UTC, ISO 8601
    PRIMARY KEY (topic, assessor)
);

CREATE TABLE claims (
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    assessor TEXT NOT NULL,
    claimed_at TEXT NOT NULL,        -- UTC, ISO 8601
    expires_at TEXT NOT NULL,        -- UTC, ISO 8601: the claim lapses then
    PRIMARY KEY (topic, docno)
);

CREATE TABLE documents (
    docno TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    import_id INTEGER REFERENCES imports(import_id)
);

CREATE TABLE duplicate_findings (
    finding_id INTEGER PRIMARY KEY,
    threshold REAL NOT NULL,
    shingle_words INTEGER NOT NULL,
    num_perm INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    documents INTEGER NOT NULL,
    found_at TEXT NOT NULL
);

CREATE TABLE duplicate_members (
    finding_id INTEGER NOT NULL REFERENCES duplicate_findings(finding_id),
    group_no INTEGER NOT NULL,
    docno TEXT NOT NULL,
    exact_class INTEGER NOT NULL,
    how TEXT NOT NULL CHECK (how IN ('leader', 'exact', 'near')),
    similarity REAL NOT NULL,
    PRIMARY KEY (finding_id, docno)
);

CREATE TABLE duplicate_splits (
    split_id INTEGER PRIMARY KEY,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    assessor TEXT NOT NULL,
    split_at TEXT NOT NULL,
    origin TEXT NOT NULL
);

CREATE TABLE guidelines (
    guideline_id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL CHECK (scope IN ('collection', 'grade', 'topic')),
    target TEXT NOT NULL,            -- '' (collection), a grade (as text) or a topic
    text TEXT NOT NULL,              -- '' withdraws the text set before
    source TEXT NOT NULL,            -- the file read, or 'command line'
    set_at TEXT NOT NULL             -- UTC, ISO 8601
);

CREATE TABLE imports (
    import_id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,              -- topics | documents | qrels
    source_path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    lines INTEGER NOT NULL,          -- records read
    added INTEGER NOT NULL,          -- records stored
    imported_at TEXT NOT NULL        -- UTC, ISO 8601
);

CREATE TABLE judgments (
    judgment_id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    grade INTEGER,                   -- NULL only on a retraction row
    iteration TEXT NOT NULL DEFAULT '0',
    assessor TEXT NOT NULL,
    judged_at TEXT NOT NULL,         -- UTC, ISO 8601
    ms_spent INTEGER,                -- milliseconds the document was on screen
    note TEXT,
    origin TEXT NOT NULL,            -- 'tui', 'qrels:<path>', 'api', ...
    retracts INTEGER REFERENCES judgments(judgment_id), ms_active INTEGER,  -- undo / replace: this row cancels that one
    CHECK ((grade IS NULL) = (retracts IS NOT NULL))
);

CREATE TABLE note_drafts (
    assessor TEXT NOT NULL,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    note TEXT NOT NULL,              -- a note written before the grade; joins the next judgment
    updated_at TEXT NOT NULL,
    PRIMARY KEY (assessor, topic, docno)
) WITHOUT ROWID;

CREATE TABLE pool_docs (
    pool_id INTEGER NOT NULL REFERENCES pools(pool_id),
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    round_id INTEGER NOT NULL REFERENCES pool_rounds(round_id),  -- the round that added it
    PRIMARY KEY (pool_id, topic, docno)
) WITHOUT ROWID;

CREATE TABLE pool_hits (
    pool_id INTEGER NOT NULL,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    trec_rank INTEGER NOT NULL,      -- where this run retrieved the document
    round_id INTEGER NOT NULL REFERENCES pool_rounds(round_id),
    PRIMARY KEY (pool_id, topic, docno, run_id)
) WITHOUT ROWID;

CREATE TABLE pool_round_runs (
    round_id INTEGER NOT NULL REFERENCES pool_rounds(round_id),
    run_id INTEGER NOT NULL REFERENCES runs(run_id),     -- a run (tag, file sha256) pooled in it
    PRIMARY KEY (round_id, run_id)
) WITHOUT ROWID;

CREATE TABLE pool_rounds (
    round_id INTEGER PRIMARY KEY,
    pool_id INTEGER NOT NULL REFERENCES pools(pool_id),
    depth INTEGER NOT NULL,
    run_tags TEXT NOT NULL,          -- JSON list of the runs pooled in this round
    docs_added INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE pools (
    pool_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    strategy TEXT NOT NULL,          -- 'depth': union of every run's top k per topic
    created_at TEXT NOT NULL
);

CREATE TABLE qrels_versions (
    name TEXT PRIMARY KEY,
    last_judgment_id INTEGER NOT NULL,  -- the version is the log up to this row
    source_path TEXT,
    sha256 TEXT,
    created_at TEXT NOT NULL,
    note TEXT
);

CREATE TABLE run_columns (
    run_id INTEGER PRIMARY KEY REFERENCES runs(run_id),
    format TEXT NOT NULL,            -- 'arrow-ipc-zstd' (pooltool/store/run_columns.py)
    lines INTEGER NOT NULL,          -- rows in the blob
    sha256 TEXT NOT NULL,            -- of the blob, checked on every read
    source_sha256 TEXT NOT NULL,     -- of the source file, as runs.sha256 ('' from the API)
    entries BLOB NOT NULL            -- topic, docno, rank, score in trec_eval order per topic
);

CREATE TABLE run_retirements (
    run_id INTEGER PRIMARY KEY REFERENCES runs(run_id),  -- a run no longer live
    replaced_by INTEGER REFERENCES runs(run_id),         -- the run now under its tag; NULL: removed
    retired_at TEXT NOT NULL                             -- UTC, ISO 8601
);

CREATE TABLE "runs" (
    run_id INTEGER PRIMARY KEY,
    run_tag TEXT NOT NULL,           -- one live run per tag (see run_retirements)
    source_path TEXT NOT NULL,
    sha256 TEXT NOT NULL,            -- of the whole source file
    lines INTEGER NOT NULL,          -- entries of this run tag
    topics INTEGER NOT NULL,
    imported_at TEXT NOT NULL
);

CREATE TABLE sample_docs (
    sample_id INTEGER NOT NULL REFERENCES samples(sample_id),
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    stratum TEXT NOT NULL,
    inclusion REAL NOT NULL,         -- n_h / N_h
    PRIMARY KEY (sample_id, topic, docno)
) WITHOUT ROWID;

CREATE TABLE sample_growths (
    sample_id INTEGER NOT NULL REFERENCES samples(sample_id),
    budget INTEGER NOT NULL,         -- documents per topic after this growth
    created_at TEXT NOT NULL,        -- UTC, ISO 8601
    PRIMARY KEY (sample_id, budget)
) WITHOUT ROWID;

CREATE TABLE sample_strata (
    sample_id INTEGER NOT NULL REFERENCES samples(sample_id),
    topic TEXT NOT NULL,
    stratum TEXT NOT NULL,
    population INTEGER NOT NULL,     -- N_h: unpooled frame documents in the stratum
    size INTEGER NOT NULL,           -- n_h: documents drawn (simple random sample)
    PRIMARY KEY (sample_id, topic, stratum)
) WITHOUT ROWID;

CREATE TABLE sample_strata_grown (
    sample_id INTEGER NOT NULL REFERENCES samples(sample_id),
    budget INTEGER NOT NULL,         -- the growth (sample_growths.budget) these sizes are after
    topic TEXT NOT NULL,
    stratum TEXT NOT NULL,
    size INTEGER NOT NULL,           -- n_h after the growth (N_h does not change)
    PRIMARY KEY (sample_id, budget, topic, stratum)
) WITHOUT ROWID;

CREATE TABLE samples (
    sample_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,       -- also the name of the pool that holds the sampled docs
    pool_id INTEGER NOT NULL REFERENCES pools(pool_id),       -- the sample's own pool
    base_pool_id INTEGER NOT NULL REFERENCES pools(pool_id),  -- the pool it lies beyond
    strata TEXT NOT NULL,            -- the strata spec (best-rank ranges, unretrieved)
    frame TEXT NOT NULL,             -- 'collection' (with unretrieved) or 'runs'
    allocation TEXT NOT NULL,        -- 'equal' | 'proportional'
    budget INTEGER NOT NULL,         -- documents per topic
    seed INTEGER NOT NULL,
    run_ids TEXT NOT NULL,           -- JSON list: the runs whose best ranks define the strata
    created_at TEXT NOT NULL         -- UTC, ISO 8601
);

CREATE TABLE scan_terms (
    assessor TEXT NOT NULL,
    topic TEXT NOT NULL,
    terms TEXT NOT NULL,             -- JSON list of the words/phrases the assessor highlights
    updated_at TEXT NOT NULL,
    PRIMARY KEY (assessor, topic)
);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE skip_marks (
    assessor TEXT NOT NULL,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    skipped_at TEXT NOT NULL,        -- a document left for later in the judging UI
    PRIMARY KEY (assessor, topic, docno)
) WITHOUT ROWID;

CREATE TABLE topics (
    topic TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    narrative TEXT NOT NULL,
    import_id INTEGER REFERENCES imports(import_id)
);

CREATE TABLE ui_positions (
    assessor TEXT NOT NULL,
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,             -- the document last on the assessor's screen
    updated_at TEXT NOT NULL,
    PRIMARY KEY (assessor, topic)
);

CREATE TABLE ui_write_tokens (
    token TEXT PRIMARY KEY,          -- a judging-UI write that waited in a journal file
    result INTEGER,                  -- what it returned (a judgment_id), for later writes
    applied_at TEXT NOT NULL         -- UTC, ISO 8601
);

CREATE INDEX accounts_by_name ON accounts(name, account_id);

CREATE INDEX adjudications_resolves ON adjudications(resolves);

CREATE INDEX assessor_kinds_by_assessor ON assessor_kinds(assessor, kind_id);

CREATE INDEX assignments_by_assessor ON assignments(assessor, topic);

CREATE INDEX claims_by_assessor ON claims(assessor, topic);

CREATE INDEX duplicate_members_group ON duplicate_members(finding_id, group_no);

CREATE INDEX duplicate_splits_pair ON duplicate_splits(topic, docno);

CREATE INDEX guidelines_by_target ON guidelines(scope, target);

CREATE UNIQUE INDEX "idx__sqlite_migrations_migration_set_name"
    ON "_sqlite_migrations" ("migration_set", "name");

CREATE INDEX judgments_by_assessor ON judgments(assessor, topic);

CREATE INDEX judgments_by_pair ON judgments(topic, docno);

CREATE UNIQUE INDEX judgments_retracts ON judgments(retracts) WHERE retracts IS NOT NULL;

CREATE INDEX runs_by_tag ON runs(run_tag);
