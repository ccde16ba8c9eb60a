-- CreateTable
CREATE TABLE "device_tokens" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "device_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "device_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sensor_sessions" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "serial_number" TEXT NOT NULL,
    "sensor_type" TEXT,
    "started_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3),
    "status" TEXT NOT NULL DEFAULT 'active',
    "unbound_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "sensor_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "health_metrics" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "metric_type" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "unit" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "health_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sleep_samples" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "stage" TEXT NOT NULL,
    "start_at" TIMESTAMP(3) NOT NULL,
    "end_at" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL DEFAULT '',
    "source_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "sleep_samples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workout_samples" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "activity_type" TEXT NOT NULL,
    "start_at" TIMESTAMP(3) NOT NULL,
    "end_at" TIMESTAMP(3) NOT NULL,
    "duration_minutes" DOUBLE PRECISION NOT NULL,
    "energy_kcal" DOUBLE PRECISION,
    "distance_m" DOUBLE PRECISION,
    "source" TEXT NOT NULL DEFAULT '',
    "source_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "workout_samples_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "device_tokens_token_key" ON "device_tokens"("token");

-- CreateIndex
CREATE INDEX "device_tokens_user_id_idx" ON "device_tokens"("user_id");

-- CreateIndex
CREATE INDEX "device_tokens_user_id_server_updated_at_idx" ON "device_tokens"("user_id", "server_updated_at");

-- CreateIndex
CREATE INDEX "sensor_sessions_user_id_server_updated_at_idx" ON "sensor_sessions"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "sensor_sessions_user_id_serial_number_key" ON "sensor_sessions"("user_id", "serial_number");

-- CreateIndex
CREATE INDEX "health_metrics_user_id_metric_type_timestamp_idx" ON "health_metrics"("user_id", "metric_type", "timestamp");

-- CreateIndex
CREATE INDEX "health_metrics_user_id_server_updated_at_idx" ON "health_metrics"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "health_metrics_user_id_timestamp_metric_type_source_key" ON "health_metrics"("user_id", "timestamp", "metric_type", "source");

-- CreateIndex
CREATE INDEX "sleep_samples_user_id_start_at_idx" ON "sleep_samples"("user_id", "start_at");

-- CreateIndex
CREATE INDEX "sleep_samples_user_id_server_updated_at_idx" ON "sleep_samples"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "sleep_samples_user_id_stage_start_at_end_at_source_key" ON "sleep_samples"("user_id", "stage", "start_at", "end_at", "source");

-- CreateIndex
CREATE UNIQUE INDEX "sleep_samples_user_id_source_id_key" ON "sleep_samples"("user_id", "source_id");

-- CreateIndex
CREATE INDEX "workout_samples_user_id_start_at_idx" ON "workout_samples"("user_id", "start_at");

-- CreateIndex
CREATE INDEX "workout_samples_user_id_server_updated_at_idx" ON "workout_samples"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "workout_samples_user_id_activity_type_start_at_end_at_sourc_key" ON "workout_samples"("user_id", "activity_type", "start_at", "end_at", "source");

-- CreateIndex
CREATE UNIQUE INDEX "workout_samples_user_id_source_id_key" ON "workout_samples"("user_id", "source_id");

-- AddForeignKey
ALTER TABLE "device_tokens" ADD CONSTRAINT "device_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sensor_sessions" ADD CONSTRAINT "sensor_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "health_metrics" ADD CONSTRAINT "health_metrics_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sleep_samples" ADD CONSTRAINT "sleep_samples_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workout_samples" ADD CONSTRAINT "workout_samples_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
