-- Trigram similarity for typo-tolerant food search (PGlite: src/db/target.ts loads the extension).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
-- The planner prices a function call at 1, so a sequential scan computing word similarity on every
-- row looks cheaper than the trigram index; price the similarity operators as what they cost.
ALTER FUNCTION word_similarity_op(text, text) COST 100;
ALTER FUNCTION word_similarity_commutator_op(text, text) COST 100;

-- AlterTable
ALTER TABLE "foods" ADD COLUMN     "search_text" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "search_vector" tsvector;

-- CreateTable
CREATE TABLE "food_import_checkpoints" (
    "key" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "file_hash" TEXT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "chunks" INTEGER NOT NULL,
    "foods" INTEGER NOT NULL,
    "completed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "food_import_checkpoints_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "food_import_checkpoints_source_file_hash_idx" ON "food_import_checkpoints"("source", "file_hash");

-- CreateIndex
CREATE INDEX "foods_search_text_trgm_idx" ON "foods" USING GIN ("search_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "foods_search_vector_idx" ON "foods" USING GIN ("search_vector");
