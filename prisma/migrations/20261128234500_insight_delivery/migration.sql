-- CreateTable
CREATE TABLE "insight_mornings" (
    "user_id" INTEGER NOT NULL,
    "day" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL,
    "done_at" TIMESTAMPTZ(3),
    "recorded" INTEGER NOT NULL DEFAULT 0,
    "push_status" TEXT,

    CONSTRAINT "insight_mornings_pkey" PRIMARY KEY ("user_id","day")
);

-- CreateTable
CREATE TABLE "insight_alert_episodes" (
    "user_id" INTEGER NOT NULL,
    "rule" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "insight_alert_episodes_pkey" PRIMARY KEY ("user_id","rule")
);

-- CreateIndex
CREATE INDEX "insight_mornings_claimed_at_idx" ON "insight_mornings"("claimed_at");

-- AddForeignKey
ALTER TABLE "insight_mornings" ADD CONSTRAINT "insight_mornings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insight_alert_episodes" ADD CONSTRAINT "insight_alert_episodes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
