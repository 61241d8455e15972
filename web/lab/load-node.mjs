// Node loader for the lab's committed models (web/lab/models/): the runner's `read` from the file system.
import { readFile } from 'node:fs/promises';
import { loadLabModel } from './runner.mjs';

export const MODELS_DIR = new URL('./models/', import.meta.url);

export async function readModelFile(file) {
  const buf = await readFile(new URL(file, MODELS_DIR));
  return file.endsWith('.json') ? JSON.parse(buf.toString('utf8')) : buf;
}

export const loadModelFromDisk = (pe, name) => loadLabModel(pe, name, readModelFile);
