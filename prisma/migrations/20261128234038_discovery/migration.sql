-- CreateTable
CREATE TABLE "discovery_observations" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "label" TEXT NOT NULL,
    "intensity" INTEGER,
    "note" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discovery_observations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discovery_runs" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "focus" TEXT,
    "from_date" TEXT NOT NULL,
    "to_date" TEXT NOT NULL,
    "zone" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "pairs_tested" INTEGER NOT NULL DEFAULT 0,
    "pairs_skipped" INTEGER NOT NULL DEFAULT 0,
    "found" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),
    "heartbeat_at" TIMESTAMP(3),

    CONSTRAINT "discovery_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discovery_hypotheses" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "driver" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "lag" INTEGER NOT NULL,
    "method" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "n_high" INTEGER NOT NULL,
    "n_low" INTEGER NOT NULL,
    "effect" DOUBLE PRECISION,
    "ci_low" DOUBLE PRECISION,
    "ci_high" DOUBLE PRECISION,
    "p" DOUBLE PRECISION,
    "q" DOUBLE PRECISION,
    "significant" BOOLEAN NOT NULL,
    "direction" TEXT,
    "not_enough_data" TEXT,
    "statement" TEXT NOT NULL,
    "experiment" TEXT,

    CONSTRAINT "discovery_hypotheses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "discovery_observations_user_id_observed_at_idx" ON "discovery_observations"("user_id", "observed_at");

-- CreateIndex
CREATE INDEX "discovery_observations_user_id_label_idx" ON "discovery_observations"("user_id", "label");

-- CreateIndex
CREATE INDEX "discovery_runs_user_id_created_at_idx" ON "discovery_runs"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "discovery_runs_status_idx" ON "discovery_runs"("status");

-- CreateIndex
CREATE INDEX "discovery_hypotheses_run_id_significant_idx" ON "discovery_hypotheses"("run_id", "significant");

-- CreateIndex
CREATE INDEX "discovery_hypotheses_user_id_idx" ON "discovery_hypotheses"("user_id");

-- AddForeignKey
ALTER TABLE "discovery_observations" ADD CONSTRAINT "discovery_observations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discovery_runs" ADD CONSTRAINT "discovery_runs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discovery_hypotheses" ADD CONSTRAINT "discovery_hypotheses_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "discovery_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discovery_hypotheses" ADD CONSTRAINT "discovery_hypotheses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
