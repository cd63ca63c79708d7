/**
 * The one error type of fauxlab. Anything thrown from a handler that is not an ApiError becomes the
 * platform's 500 body (see app.onError). The helpers below reproduce the exact bodies of the platform's
 * helpers (render_api_error!, Grape's error!, not_found!, ...): two body shapes really do coexist there,
 * `{"message": ...}` and `{"error": ...}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** Why a 404 happened, for the request journal; never sent unless explaining is on. */
    readonly explain?: string,
  ) {
    super(typeof body === 'object' && body !== null ? JSON.stringify(body) : String(body));
    this.name = 'ApiError';
  }
}

/** `render_api_error!`: `{"message": msg}`. */
export const apiError = (status: number, message: unknown, explain?: string) =>
  new ApiError(status, { message }, {}, explain);

/** Grape's own `error!("...")`: `{"error": msg}`. */
export const grapeError = (status: number, error: unknown, headers: Record<string, string> = {}) =>
  new ApiError(status, { error }, headers);

export const badRequest = (reason?: string) =>
  apiError(400, reason ? `400 Bad request - ${reason}` : '400 Bad request');

/** `bad_request_missing_attribute!`. */
export const missingAttribute = (attr: string) => badRequest(`"${attr}" not given`);

export const unauthorized = () => apiError(401, '401 Unauthorized');

export const forbidden = (reason?: string) =>
  apiError(403, reason ? `403 Forbidden - ${reason}` : '403 Forbidden');

/** `not_found!(resource)`: `404 Project Not Found`; without a resource `404 Not Found`. */
export const notFound = (resource?: string, explain?: string) =>
  apiError(404, resource ? `404 ${resource} Not Found` : '404 Not Found', explain);

/** The catch-all route (`route :any, '*path'`): what an unknown path, or a param that fails a route requirement, gets. */
export const noRoute = (explain = 'no such route') =>
  new ApiError(404, { error: '404 Not Found' }, {}, explain);

/** ActiveRecord::RecordNotFound, rendered with a lowercase "f". */
export const recordNotFound = (explain?: string) => apiError(404, '404 Not found', explain);

export const conflict = (message?: unknown) => apiError(409, message ?? '409 Conflict');

export const unprocessable = (message?: unknown) => apiError(422, message ?? '422 Unprocessable Entity');

/** `render_validation_error!`: the model's errors hash. */
export const validationError = (errors: Record<string, string[]>) => apiError(400, errors);

/** `not_modified!`: 304 with an empty body. */
export const notModified = () => new ApiError(304, null);

export const preconditionFailed = () => apiError(412, '412 Precondition Failed');

export const internalError = () => apiError(500, '500 Internal Server Error');

/** Rack::OAuth2 bodies for token problems, sent with a `WWW-Authenticate` header. */
export function invalidToken(description: string): ApiError {
  return new ApiError(
    401,
    { error: 'invalid_token', error_description: description },
    {
      'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
    },
  );
}

export function insufficientScope(scopes: string[]): ApiError {
  const description = 'The request requires higher privileges than provided by the access token.';
  const scope = scopes.join(' ');
  return new ApiError(
    403,
    { error: 'insufficient_scope', error_description: description, scope },
    {
      'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", error_description="${description}", scope="${scope}"`,
    },
  );
}
