-- CreateTable
CREATE TABLE "dna_reports" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "sealed" BYTEA,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "heartbeat_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "dna_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dna_reports_user_id_kind_created_at_idx" ON "dna_reports"("user_id", "kind", "created_at");

-- CreateIndex
CREATE INDEX "dna_reports_status_idx" ON "dna_reports"("status");

-- AddForeignKey
ALTER TABLE "dna_reports" ADD CONSTRAINT "dna_reports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
