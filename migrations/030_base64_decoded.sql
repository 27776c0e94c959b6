-- Sources stored from now on keep their base64 as the bytes it stands for (src/store/base64-runs.ts):
-- brotli then finds the structure base64 hides (0.57 -> 0.53 bytes per byte of mail on the
-- storage bench). Sources stored before keep their form (0) and read as they are: nothing to convert.
ALTER TABLE message_sources ADD COLUMN base64_decoded INTEGER NOT NULL DEFAULT 0;
