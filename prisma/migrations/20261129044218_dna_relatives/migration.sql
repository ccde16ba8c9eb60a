-- CreateTable
CREATE TABLE "dna_relatives" (
    "id" TEXT NOT NULL,
    "inviter_id" INTEGER NOT NULL,
    "invitee_id" INTEGER,
    "invitee_email" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "inviter_ancestry" BOOLEAN NOT NULL DEFAULT false,
    "invitee_ancestry" BOOLEAN NOT NULL DEFAULT false,
    "inviter_haplogroups" BOOLEAN NOT NULL DEFAULT false,
    "invitee_haplogroups" BOOLEAN NOT NULL DEFAULT false,
    "comparison" BYTEA,
    "compared_for" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "accepted_at" TIMESTAMP(3),

    CONSTRAINT "dna_relatives_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dna_relatives_inviter_id_idx" ON "dna_relatives"("inviter_id");

-- CreateIndex
CREATE INDEX "dna_relatives_invitee_id_idx" ON "dna_relatives"("invitee_id");

-- CreateIndex
CREATE INDEX "dna_relatives_invitee_email_idx" ON "dna_relatives"("invitee_email");

-- AddForeignKey
ALTER TABLE "dna_relatives" ADD CONSTRAINT "dna_relatives_inviter_id_fkey" FOREIGN KEY ("inviter_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dna_relatives" ADD CONSTRAINT "dna_relatives_invitee_id_fkey" FOREIGN KEY ("invitee_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
