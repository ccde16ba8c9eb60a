-- CreateTable
CREATE TABLE "detected_meal_dismissals" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "detected_id" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "dismissed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "detected_meal_dismissals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "detected_meal_dismissals_user_id_started_at_idx" ON "detected_meal_dismissals"("user_id", "started_at");

-- CreateIndex
CREATE UNIQUE INDEX "detected_meal_dismissals_user_id_detected_id_key" ON "detected_meal_dismissals"("user_id", "detected_id");

-- AddForeignKey
ALTER TABLE "detected_meal_dismissals" ADD CONSTRAINT "detected_meal_dismissals_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
