-- CreateTable
CREATE TABLE "challenges" (
    "id" TEXT NOT NULL,
    "creator_id" INTEGER,
    "circle_id" TEXT,
    "title" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "scoring" TEXT NOT NULL,
    "habit" TEXT,
    "start_date" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cancelled_at" TIMESTAMP(3),
    "ended_at" TIMESTAMP(3),
    "former_members" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "challenges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "challenge_participants" (
    "challenge_id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "invited_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "responded_at" TIMESTAMP(3),
    "goal_target" DOUBLE PRECISION,

    CONSTRAINT "challenge_participants_pkey" PRIMARY KEY ("challenge_id","user_id")
);

-- CreateTable
CREATE TABLE "challenge_checkins" (
    "challenge_id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "date" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "challenge_checkins_pkey" PRIMARY KEY ("challenge_id","user_id","date")
);

-- CreateTable
CREATE TABLE "community_circles" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "invite_code_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "community_circles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "community_members" (
    "circle_id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "shares" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "community_members_pkey" PRIMARY KEY ("circle_id","user_id")
);

-- CreateTable
CREATE TABLE "community_nudges" (
    "id" TEXT NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "text" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seen_at" TIMESTAMP(3),

    CONSTRAINT "community_nudges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "community_mutes" (
    "user_id" INTEGER NOT NULL,
    "muted_user_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "community_mutes_pkey" PRIMARY KEY ("user_id","muted_user_id")
);

-- CreateIndex
CREATE INDEX "challenges_circle_id_idx" ON "challenges"("circle_id");

-- CreateIndex
CREATE INDEX "challenge_participants_user_id_idx" ON "challenge_participants"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "community_circles_invite_code_hash_key" ON "community_circles"("invite_code_hash");

-- CreateIndex
CREATE INDEX "community_members_user_id_idx" ON "community_members"("user_id");

-- CreateIndex
CREATE INDEX "community_members_circle_id_joined_at_idx" ON "community_members"("circle_id", "joined_at");

-- CreateIndex
CREATE INDEX "community_nudges_recipient_id_created_at_idx" ON "community_nudges"("recipient_id", "created_at");

-- CreateIndex
CREATE INDEX "community_nudges_sender_id_recipient_id_created_at_idx" ON "community_nudges"("sender_id", "recipient_id", "created_at");

-- AddForeignKey
ALTER TABLE "challenges" ADD CONSTRAINT "challenges_circle_id_fkey" FOREIGN KEY ("circle_id") REFERENCES "community_circles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "challenge_participants" ADD CONSTRAINT "challenge_participants_challenge_id_fkey" FOREIGN KEY ("challenge_id") REFERENCES "challenges"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "challenge_participants" ADD CONSTRAINT "challenge_participants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "challenge_checkins" ADD CONSTRAINT "challenge_checkins_challenge_id_user_id_fkey" FOREIGN KEY ("challenge_id", "user_id") REFERENCES "challenge_participants"("challenge_id", "user_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "challenge_checkins" ADD CONSTRAINT "challenge_checkins_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_members" ADD CONSTRAINT "community_members_circle_id_fkey" FOREIGN KEY ("circle_id") REFERENCES "community_circles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_members" ADD CONSTRAINT "community_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_nudges" ADD CONSTRAINT "community_nudges_sender_id_fkey" FOREIGN KEY ("sender_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_nudges" ADD CONSTRAINT "community_nudges_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_mutes" ADD CONSTRAINT "community_mutes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_mutes" ADD CONSTRAINT "community_mutes_muted_user_id_fkey" FOREIGN KEY ("muted_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
