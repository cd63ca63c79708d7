/** Control-plane request bodies: JSON, an empty body read as `{}`. */
import { apiError } from './errors.js';

export async function jsonBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw apiError(400, 'body must be JSON');
  }
}

/** A body that must be a JSON object (settings, delays, pushes). */
export async function jsonObject(req: Request): Promise<Record<string, unknown>> {
  const body = await jsonBody(req);
  if (typeof body === 'object' && body !== null && !Array.isArray(body))
    return body as Record<string, unknown>;
  throw apiError(400, 'body must be a JSON object');
}
