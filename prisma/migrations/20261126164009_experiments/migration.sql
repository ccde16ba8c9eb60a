-- CreateTable
CREATE TABLE "experiments" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "intervention" TEXT NOT NULL,
    "meal_type" TEXT,
    "baseline_days" INTEGER NOT NULL,
    "intervention_days" INTEGER NOT NULL,
    "start_at" TIMESTAMP(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "paused_at" TIMESTAMP(3),
    "pauses" TEXT NOT NULL DEFAULT '[]',
    "ended_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "experiments_user_id_created_at_idx" ON "experiments"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
