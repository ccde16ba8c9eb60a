/**
 * The health samples an import stores (point-in-time metrics, sleep and workout intervals): plain
 * shapes with no I/O, shared by the service (health.service.ts) and the Apple export's reader.
 */
import type { MetricType, SleepStage } from './health.constants.ts';

export interface MetricSampleIn {
  metricType: MetricType;
  value: number;
  timestamp: Date;
  /** the app or device that recorded it; absent means "" */
  source?: string | null;
}

export interface SleepSampleIn {
  stage: SleepStage;
  startAt: Date;
  endAt: Date;
  source?: string | null;
  /** the health store's own sample identifier (HealthKit UUID) */
  sourceId?: string | null;
}

export interface WorkoutSampleIn {
  activityType: string;
  startAt: Date;
  endAt: Date;
  energyKcal?: number | null;
  distanceM?: number | null;
  source?: string | null;
  sourceId?: string | null;
}
