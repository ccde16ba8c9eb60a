-- CreateTable
CREATE TABLE "glucose_readings" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "sensor_id" INTEGER NOT NULL DEFAULT 0,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "value_mg_dl" DOUBLE PRECISION NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'cgm',
    "processing_version" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "glucose_readings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "raw_sensor_data" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "sensor_id" INTEGER NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "raw_value" DOUBLE PRECISION NOT NULL,
    "temperature_c" DOUBLE PRECISION,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "raw_sensor_data_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "glucose_sensors" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "sensor_id" INTEGER NOT NULL,
    "serial_number" TEXT,
    "calibration_slope" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "calibration_intercept" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "started_at" TIMESTAMP(3),
    "last_seen_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "glucose_sensors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "glucose_readings_user_id_timestamp_idx" ON "glucose_readings"("user_id", "timestamp");

-- CreateIndex
CREATE INDEX "glucose_readings_user_id_server_updated_at_idx" ON "glucose_readings"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "glucose_readings_user_id_sensor_id_timestamp_key" ON "glucose_readings"("user_id", "sensor_id", "timestamp");

-- CreateIndex
CREATE INDEX "raw_sensor_data_user_id_server_updated_at_idx" ON "raw_sensor_data"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "raw_sensor_data_user_id_sensor_id_timestamp_key" ON "raw_sensor_data"("user_id", "sensor_id", "timestamp");

-- CreateIndex
CREATE INDEX "glucose_sensors_user_id_server_updated_at_idx" ON "glucose_sensors"("user_id", "server_updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "glucose_sensors_user_id_sensor_id_key" ON "glucose_sensors"("user_id", "sensor_id");

-- AddForeignKey
ALTER TABLE "glucose_readings" ADD CONSTRAINT "glucose_readings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "raw_sensor_data" ADD CONSTRAINT "raw_sensor_data_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "glucose_sensors" ADD CONSTRAINT "glucose_sensors_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
