import { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from '../../api/errors';
import type { Schemas } from '../../api/types';

export type Upload = Schemas['ImportUpload'];

/**
 * POST /imports/upload as multipart, through XMLHttpRequest: fetch cannot report how much of a
 * request body has gone. `onProgress` gets the fraction sent (0..1). Errors come as ApiError,
 * read from the server's envelope like the typed client's.
 */
export function uploadFile(file: File, onProgress: (sent: number) => void, signal?: AbortSignal): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/imports/upload');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      const body = xhr.response as { data?: { upload?: Upload }; error?: Schemas['Error']['error'] } | null;
      if (xhr.status === 201 && body?.data?.upload) {
        onProgress(1);
        resolve(body.data.upload);
        return;
      }
      const e = body?.error;
      if (e && typeof e.code === 'string') reject(new ApiError(xhr.status, e.code, e.message, e.params ?? {}, e.issues ?? [], e.requestId));
      else reject(new ApiError(xhr.status, UNEXPECTED_RESPONSE, xhr.statusText));
    };
    xhr.onerror = () => reject(new ApiError(0, NETWORK_ERROR, 'network error'));
    xhr.onabort = () => reject(new ApiError(0, NETWORK_ERROR, 'aborted'));
    signal?.addEventListener('abort', () => xhr.abort());
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
