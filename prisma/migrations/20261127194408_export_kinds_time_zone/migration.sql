-- AlterTable
ALTER TABLE "export_jobs" ADD COLUMN     "kinds" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "time_zone" TEXT NOT NULL DEFAULT 'UTC';
