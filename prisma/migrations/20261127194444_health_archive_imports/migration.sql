-- CreateTable
CREATE TABLE "health_archive_imports" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "sha256" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "file_name" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "records_read" INTEGER NOT NULL DEFAULT 0,
    "records_stored" INTEGER NOT NULL DEFAULT 0,
    "counts" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMP(3),
    "heartbeat_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "health_archive_imports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "health_archive_imports_user_id_created_at_idx" ON "health_archive_imports"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "health_archive_imports_status_idx" ON "health_archive_imports"("status");

-- CreateIndex
CREATE UNIQUE INDEX "health_archive_imports_user_id_sha256_key" ON "health_archive_imports"("user_id", "sha256");

-- CreateIndex
CREATE UNIQUE INDEX "health_archive_imports_user_id_idempotency_key_key" ON "health_archive_imports"("user_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "health_archive_imports" ADD CONSTRAINT "health_archive_imports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
