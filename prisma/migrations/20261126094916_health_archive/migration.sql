-- CreateTable
CREATE TABLE "health_archive_records" (
    "id" BIGSERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "value_text" TEXT NOT NULL DEFAULT '',
    "unit" TEXT,
    "start_at" TIMESTAMP(3) NOT NULL,
    "end_at" TIMESTAMP(3) NOT NULL,
    "created_at_source" TIMESTAMP(3),
    "source_name" TEXT NOT NULL DEFAULT '',
    "source_version" TEXT,
    "device" TEXT,
    "metadata" JSONB,
    "workout_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_archive_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "health_archive_workouts" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "activity_type" TEXT NOT NULL,
    "start_at" TIMESTAMP(3) NOT NULL,
    "end_at" TIMESTAMP(3) NOT NULL,
    "duration_minutes" DOUBLE PRECISION,
    "distance_m" DOUBLE PRECISION,
    "energy_kcal" DOUBLE PRECISION,
    "source_name" TEXT NOT NULL DEFAULT '',
    "source_version" TEXT,
    "device" TEXT,
    "metadata" JSONB,
    "statistics" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_archive_workouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "health_archive_route_points" (
    "workout_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "lat" DOUBLE PRECISION NOT NULL,
    "lon" DOUBLE PRECISION NOT NULL,
    "elevation" DOUBLE PRECISION,
    "speed" DOUBLE PRECISION,
    "course" DOUBLE PRECISION,
    "h_acc" DOUBLE PRECISION,
    "v_acc" DOUBLE PRECISION,

    CONSTRAINT "health_archive_route_points_pkey" PRIMARY KEY ("workout_id","seq")
);

-- CreateTable
CREATE TABLE "health_archive_ecg" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "recorded_at" TIMESTAMP(3) NOT NULL,
    "classification" TEXT,
    "symptoms" TEXT,
    "software_version" TEXT,
    "device" TEXT,
    "sample_rate_hz" DOUBLE PRECISION NOT NULL,
    "lead" TEXT,
    "unit" TEXT,
    "header" JSONB NOT NULL,
    "samples" REAL[],
    "file_name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_archive_ecg_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "health_archive_records_user_id_kind_start_at_idx" ON "health_archive_records"("user_id", "kind", "start_at");

-- CreateIndex
CREATE UNIQUE INDEX "health_archive_records_user_id_type_start_at_end_at_source__key" ON "health_archive_records"("user_id", "type", "start_at", "end_at", "source_name", "value_text");

-- CreateIndex
CREATE INDEX "health_archive_workouts_user_id_start_at_idx" ON "health_archive_workouts"("user_id", "start_at");

-- CreateIndex
CREATE INDEX "health_archive_route_points_user_id_idx" ON "health_archive_route_points"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "health_archive_ecg_user_id_recorded_at_key" ON "health_archive_ecg"("user_id", "recorded_at");

-- AddForeignKey
ALTER TABLE "health_archive_records" ADD CONSTRAINT "health_archive_records_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "health_archive_workouts" ADD CONSTRAINT "health_archive_workouts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "health_archive_route_points" ADD CONSTRAINT "health_archive_route_points_workout_id_fkey" FOREIGN KEY ("workout_id") REFERENCES "health_archive_workouts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "health_archive_route_points" ADD CONSTRAINT "health_archive_route_points_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "health_archive_ecg" ADD CONSTRAINT "health_archive_ecg_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
