-- CreateTable
CREATE TABLE "lab_reports" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "drawn_on" TEXT NOT NULL,
    "lab" TEXT,
    "source" TEXT NOT NULL DEFAULT 'typed',
    "note" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "lab_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lab_results" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "report_id" TEXT NOT NULL,
    "marker_id" TEXT NOT NULL,
    "loinc" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "unit" TEXT NOT NULL,
    "ref_low" DOUBLE PRECISION,
    "ref_high" DOUBLE PRECISION,
    "ref_text" TEXT,
    "flag" TEXT,
    "source_line" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "lab_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "lab_reports_user_id_drawn_on_idx" ON "lab_reports"("user_id", "drawn_on");

-- CreateIndex
CREATE INDEX "lab_reports_user_id_server_updated_at_idx" ON "lab_reports"("user_id", "server_updated_at");

-- CreateIndex
CREATE INDEX "lab_results_user_id_marker_id_idx" ON "lab_results"("user_id", "marker_id");

-- CreateIndex
CREATE INDEX "lab_results_user_id_report_id_idx" ON "lab_results"("user_id", "report_id");

-- CreateIndex
CREATE INDEX "lab_results_user_id_server_updated_at_idx" ON "lab_results"("user_id", "server_updated_at");

-- AddForeignKey
ALTER TABLE "lab_reports" ADD CONSTRAINT "lab_reports_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "lab_results" ADD CONSTRAINT "lab_results_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
