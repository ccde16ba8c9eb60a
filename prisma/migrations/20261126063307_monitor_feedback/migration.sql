-- CreateTable
CREATE TABLE "feedback_reports" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "category" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "app_version" TEXT,
    "context" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "feedback_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_links" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "client_id" TEXT NOT NULL,
    "secret_ciphertext" TEXT NOT NULL,
    "linked_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "monitor_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_devices" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "serial_number" TEXT NOT NULL,
    "device_type" TEXT,
    "name" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monitor_devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_readings" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER,
    "serial_number" TEXT NOT NULL,
    "recorded_at" TIMESTAMP(3) NOT NULL,
    "temperature" DOUBLE PRECISION,
    "humidity" DOUBLE PRECISION,
    "co2" DOUBLE PRECISION,
    "pm25" DOUBLE PRECISION,
    "delivery_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monitor_readings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_deliveries" (
    "id" SERIAL NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monitor_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "feedback_reports_user_id_created_at_idx" ON "feedback_reports"("user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "monitor_links_user_id_key" ON "monitor_links"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "monitor_devices_serial_number_key" ON "monitor_devices"("serial_number");

-- CreateIndex
CREATE INDEX "monitor_devices_user_id_idx" ON "monitor_devices"("user_id");

-- CreateIndex
CREATE INDEX "monitor_readings_user_id_recorded_at_idx" ON "monitor_readings"("user_id", "recorded_at");

-- CreateIndex
CREATE UNIQUE INDEX "monitor_readings_serial_number_recorded_at_key" ON "monitor_readings"("serial_number", "recorded_at");

-- CreateIndex
CREATE UNIQUE INDEX "monitor_deliveries_delivery_id_key" ON "monitor_deliveries"("delivery_id");

-- AddForeignKey
ALTER TABLE "feedback_reports" ADD CONSTRAINT "feedback_reports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_links" ADD CONSTRAINT "monitor_links_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_devices" ADD CONSTRAINT "monitor_devices_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_readings" ADD CONSTRAINT "monitor_readings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_readings" ADD CONSTRAINT "monitor_readings_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "monitor_deliveries"("id") ON DELETE SET NULL ON UPDATE CASCADE;
