#!/usr/bin/env node
// Docker HEALTHCHECK: exit 0 when GET /readyz answers 200 (see src/cli/healthcheck.ts).
import '../dist/cli/healthcheck.js';
