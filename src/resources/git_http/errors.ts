/** A request upload-pack would refuse: answered with an `ERR` packet, as upload-pack does. */
export class UploadError extends Error {}
