-- CreateTable
CREATE TABLE "dna_genomes" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "vendor" TEXT NOT NULL,
    "version" TEXT,
    "build" TEXT NOT NULL,
    "markers" INTEGER NOT NULL,
    "called" INTEGER NOT NULL,
    "call_rate" DOUBLE PRECISION NOT NULL,
    "sex" TEXT,
    "sex_note" TEXT NOT NULL,
    "x_heterozygosity" DOUBLE PRECISION,
    "sealed" BYTEA NOT NULL,
    "file_bytes" INTEGER NOT NULL,
    "uploaded_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dna_genomes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "dna_genomes_user_id_key" ON "dna_genomes"("user_id");

-- AddForeignKey
ALTER TABLE "dna_genomes" ADD CONSTRAINT "dna_genomes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
