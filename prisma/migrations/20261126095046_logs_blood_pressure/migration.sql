-- CreateTable
CREATE TABLE "blood_pressure_readings" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "systolic" INTEGER NOT NULL,
    "diastolic" INTEGER NOT NULL,
    "pulse" INTEGER,
    "measured_at" TIMESTAMPTZ(3) NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'manual',
    "note" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "blood_pressure_readings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "log_entries" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT,
    "value" DOUBLE PRECISION,
    "unit" TEXT,
    "dose" TEXT,
    "duration_minutes" DOUBLE PRECISION,
    "logged_at" TIMESTAMPTZ(3) NOT NULL,
    "note" TEXT,
    "source" TEXT NOT NULL DEFAULT 'manual',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "log_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "blood_pressure_readings_user_id_measured_at_idx" ON "blood_pressure_readings"("user_id", "measured_at");

-- CreateIndex
CREATE INDEX "blood_pressure_readings_user_id_server_updated_at_idx" ON "blood_pressure_readings"("user_id", "server_updated_at");

-- CreateIndex
CREATE INDEX "log_entries_user_id_kind_logged_at_idx" ON "log_entries"("user_id", "kind", "logged_at");

-- CreateIndex
CREATE INDEX "log_entries_user_id_server_updated_at_idx" ON "log_entries"("user_id", "server_updated_at");

-- AddForeignKey
ALTER TABLE "blood_pressure_readings" ADD CONSTRAINT "blood_pressure_readings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "log_entries" ADD CONSTRAINT "log_entries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
