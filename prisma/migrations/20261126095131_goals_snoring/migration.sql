-- CreateTable
CREATE TABLE "goals" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "metric" TEXT NOT NULL,
    "target" DOUBLE PRECISION NOT NULL,
    "period" TEXT NOT NULL DEFAULT 'day',
    "direction" TEXT NOT NULL DEFAULT 'at_least',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "goals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snore_nights" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3) NOT NULL,
    "snoring_minutes" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "snoring_percent" DOUBLE PRECISION,
    "loudness_mean_db" DOUBLE PRECISION,
    "loudness_max_db" DOUBLE PRECISION,
    "episodes" INTEGER NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "snore_nights_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snore_audio_clips" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "night_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "snore_audio_clips_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "goals_user_id_metric_idx" ON "goals"("user_id", "metric");

-- CreateIndex
CREATE INDEX "goals_user_id_server_updated_at_idx" ON "goals"("user_id", "server_updated_at");

-- CreateIndex
CREATE INDEX "snore_nights_user_id_ended_at_idx" ON "snore_nights"("user_id", "ended_at");

-- CreateIndex
CREATE INDEX "snore_nights_user_id_server_updated_at_idx" ON "snore_nights"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "snore_audio_clips_key_key" ON "snore_audio_clips"("key");

-- CreateIndex
CREATE INDEX "snore_audio_clips_user_id_night_id_idx" ON "snore_audio_clips"("user_id", "night_id");

-- AddForeignKey
ALTER TABLE "goals" ADD CONSTRAINT "goals_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snore_nights" ADD CONSTRAINT "snore_nights_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snore_audio_clips" ADD CONSTRAINT "snore_audio_clips_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snore_audio_clips" ADD CONSTRAINT "snore_audio_clips_night_id_fkey" FOREIGN KEY ("night_id") REFERENCES "snore_nights"("id") ON DELETE CASCADE ON UPDATE CASCADE;
