-- CreateTable
CREATE TABLE "health_metric_buckets" (
    "user_id" INTEGER NOT NULL,
    "metric_type" TEXT NOT NULL,
    "minutes" INTEGER NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,
    "total" DOUBLE PRECISION NOT NULL,
    "samples" INTEGER NOT NULL,

    CONSTRAINT "health_metric_buckets_pkey" PRIMARY KEY ("user_id","metric_type","minutes","bucket","source")
);

-- The buckets follow health_metrics through statement triggers (every writer: Prisma, raw SQL,
-- COPY, sync, a user's cascade). Live rows (deleted_at IS NULL) of the cumulative metrics count.
-- A trigger hands its change as signed 15-minute deltas; apply adds them to the 15-minute and to
-- the hourly buckets and removes a bucket left with no sample.
CREATE FUNCTION health_metric_buckets_apply(delta health_metric_buckets[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO health_metric_buckets AS b (user_id, metric_type, minutes, bucket, source, total, samples)
  SELECT user_id, metric_type, minutes, bucket, source, sum(total), sum(samples)
    FROM (SELECT d.user_id, d.metric_type, 15 AS minutes, d.bucket, d.source, d.total, d.samples
            FROM unnest(delta) d
          UNION ALL
          SELECT d.user_id, d.metric_type, 60, date_trunc('hour', d.bucket), d.source, d.total, d.samples
            FROM unnest(delta) d) x
   GROUP BY user_id, metric_type, minutes, bucket, source
   ORDER BY user_id, metric_type, minutes, bucket, source
  ON CONFLICT (user_id, metric_type, minutes, bucket, source)
  DO UPDATE SET total = b.total + EXCLUDED.total, samples = b.samples + EXCLUDED.samples;
  -- only a delta that takes samples away can leave a bucket empty (none on an insert)
  DELETE FROM health_metric_buckets b
   USING (SELECT d.user_id, d.metric_type, 15 AS minutes, d.bucket, d.source
            FROM unnest(delta) d WHERE d.samples < 0
          UNION
          SELECT d.user_id, d.metric_type, 60, date_trunc('hour', d.bucket), d.source
            FROM unnest(delta) d WHERE d.samples < 0) k
   WHERE b.user_id = k.user_id AND b.metric_type = k.metric_type AND b.minutes = k.minutes
     AND b.bucket = k.bucket AND b.source = k.source AND b.samples <= 0;
$$;

CREATE FUNCTION health_metric_buckets_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM health_metric_buckets_apply(ARRAY(
    SELECT ROW(user_id, metric_type, 15, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01'),
               source, sum(value), count(*)::int)::health_metric_buckets
      FROM new_rows
     WHERE deleted_at IS NULL AND metric_type IN ('steps', 'active_energy')
     GROUP BY user_id, metric_type, source, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01')));
  RETURN NULL;
END $$;

CREATE FUNCTION health_metric_buckets_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM health_metric_buckets_apply(ARRAY(
    SELECT ROW(user_id, metric_type, 15, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01'),
               source, -sum(value), -count(*)::int)::health_metric_buckets
      FROM old_rows
     WHERE deleted_at IS NULL AND metric_type IN ('steps', 'active_energy')
     GROUP BY user_id, metric_type, source, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01')));
  RETURN NULL;
END $$;

CREATE FUNCTION health_metric_buckets_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM health_metric_buckets_apply(ARRAY(
    SELECT ROW(user_id, metric_type, 15, bucket, source, sum(v), sum(n)::int)::health_metric_buckets
      FROM (SELECT user_id, metric_type, source, value AS v, 1 AS n,
                   date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01') AS bucket
              FROM new_rows WHERE deleted_at IS NULL AND metric_type IN ('steps', 'active_energy')
            UNION ALL
            SELECT user_id, metric_type, source, -value, -1,
                   date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01')
              FROM old_rows WHERE deleted_at IS NULL AND metric_type IN ('steps', 'active_energy')) x
     GROUP BY user_id, metric_type, source, bucket
    HAVING sum(n) <> 0 OR sum(v) <> 0));
  RETURN NULL;
END $$;

CREATE FUNCTION health_metric_buckets_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE health_metric_buckets;
  RETURN NULL;
END $$;

CREATE TRIGGER health_metric_buckets_insert AFTER INSERT ON health_metrics
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION health_metric_buckets_on_insert();
CREATE TRIGGER health_metric_buckets_delete AFTER DELETE ON health_metrics
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION health_metric_buckets_on_delete();
CREATE TRIGGER health_metric_buckets_update AFTER UPDATE ON health_metrics
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION health_metric_buckets_on_update();
CREATE TRIGGER health_metric_buckets_truncate AFTER TRUNCATE ON health_metrics
  FOR EACH STATEMENT EXECUTE FUNCTION health_metric_buckets_on_truncate();

-- The bulk importer's COPY session runs with session_replication_role = replica (to skip the
-- per-row foreign-key checks, src/db/copy.ts); these triggers must fire there too.
ALTER TABLE health_metrics ENABLE ALWAYS TRIGGER health_metric_buckets_insert;
ALTER TABLE health_metrics ENABLE ALWAYS TRIGGER health_metric_buckets_delete;
ALTER TABLE health_metrics ENABLE ALWAYS TRIGGER health_metric_buckets_update;
ALTER TABLE health_metrics ENABLE ALWAYS TRIGGER health_metric_buckets_truncate;

-- the rows already stored
SELECT health_metric_buckets_apply(ARRAY(
  SELECT ROW(user_id, metric_type, 15, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01'),
             source, sum(value), count(*)::int)::health_metric_buckets
    FROM health_metrics
   WHERE deleted_at IS NULL AND metric_type IN ('steps', 'active_energy')
   GROUP BY user_id, metric_type, source, date_bin('15 minutes', "timestamp", TIMESTAMP '2000-01-01')));
