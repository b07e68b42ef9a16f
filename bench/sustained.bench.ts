import type { Report } from './support/report.js';
export async function run(report: Report): Promise<void> { report.say('todo'); }
