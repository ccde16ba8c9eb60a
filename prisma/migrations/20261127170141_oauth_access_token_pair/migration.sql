-- AlterTable
ALTER TABLE "oauth_tokens" ADD COLUMN     "refresh_id" INTEGER;
