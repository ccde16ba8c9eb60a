-- CreateTable
CREATE TABLE "sync_state" (
    "user_id" INTEGER NOT NULL,
    "identity_version" INTEGER NOT NULL DEFAULT 1,
    "clock_ms" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sync_state_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "journal_entries" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "happened_at" TIMESTAMP(3),
    "mood" INTEGER,
    "server_updated_at" TIMESTAMP(3) NOT NULL,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "journal_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "journal_entries_user_id_server_updated_at_idx" ON "journal_entries"("user_id", "server_updated_at");

-- AddForeignKey
ALTER TABLE "sync_state" ADD CONSTRAINT "sync_state_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
