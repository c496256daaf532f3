import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sharp } from '../../media/sharp-lib';
import type { Worker } from 'tesseract.js';

/**
 * Text recognition in-process with tesseract.js and the English data of the installed @tesseract.js-data/eng
 * package. Nothing is downloaded: the wasm core is required from tesseract.js-core in Node, the worker script is
 * the package's own file, and `langPath` is a local folder (tesseract.js only fetches when langPath is a URL or
 * missing). One worker is created on first use and reused; `terminateOcrWorker` ends it.
 */

interface LangData {
  code: string;
  gzip: boolean;
  langPath: string;
}

let worker: Promise<Worker> | undefined;

function cacheDir(): string {
  const dir = path.join(os.tmpdir(), 'nebula-tesseract-cache');
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function startWorker(): Promise<Worker> {
  // Loaded on first use, like the worker itself: a process that never reads text keeps neither in memory.
  const { createWorker, OEM } = await import('tesseract.js');
  // The data package is plain CommonJS without type declarations.
  const eng = require('@tesseract.js-data/eng') as LangData;
  return createWorker(eng.code, OEM.LSTM_ONLY, { langPath: eng.langPath, gzip: eng.gzip, cachePath: cacheDir() });
}

function getWorker(): Promise<Worker> {
  if (!worker) {
    worker = startWorker();
    // A failed start must not poison later calls.
    worker.catch(() => {
      worker = undefined;
    });
  }
  return worker;
}

/** Leptonica reads few formats reliably; sharp normalises anything it can decode into flat grayscale PNG. */
async function normalise(image: Buffer): Promise<Buffer> {
  return sharp(image).flatten({ background: '#ffffff' }).grayscale().png().toBuffer();
}

export async function recognizeText(image: Buffer): Promise<string> {
  const png = await normalise(image);
  const result = await (await getWorker()).recognize(png);
  return result.data.text.replace(/[ \t]+\n/g, '\n').trim();
}

/** Ends the shared worker (shutdown, tests). Safe to call when none was started. */
export async function terminateOcrWorker(): Promise<void> {
  const current = worker;
  worker = undefined;
  if (current) await (await current.catch(() => undefined))?.terminate();
}
