"""A file given with an act (a message's attachment, a decision's justificatif): the service's
direct upload (ds-graphql.md §10.4 "Attachments") — its size and base64 MD5 declared with
`createDirectUpload`, the bytes PUT to the storage address it answers with the headers it names
(never the service's token), and the signed blob id passed with the act. The service checks the
blob's hash before the act; its three refusals are `errors.UploadRefused`.

The file is held in a temporary file, unnamed on disk, from Slack to the storage; closing it (done
whatever happens to the act) leaves no copy behind. The PUT reads it back in steps as the storage takes
them, its length declared: read whole first, a 20 MiB file cost 55–56 MiB of memory at its peak (the
bytes, aiohttp's join of headers and body, the socket's copy of what it did not take at once); streamed,
well under 1 MiB (docs/benchmarks.md, "A file's upload")."""

from __future__ import annotations

import base64
import hashlib
import json
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import IO

from clients.dossiers import errors
from clients.dossiers.service import DossierService
from clients.retry import RetryPolicy

#: a message's attachment must be smaller than this (`Commentaire::FILE_MAX_SIZE`, 20 MB); the
#: service states no limit for a justificatif, which is held to the same
MOST_BYTES = 20 * 1024 * 1024
#: the content types the service takes (`config/initializers/authorized_content_types.rb`,
#: demarches-simplifiees.fr @10ad5f5b): anything else is refused before it is read from Slack
AUTHORIZED_CONTENT_TYPES = frozenset({
    "application/pdf", "application/x-pdf", "image/pdf", "text/pdf",
    "image/jpeg", "image/png", "image/tiff", "image/bmp", "image/webp", "image/gif", "image/vnd.dwg",
    "application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.ms-excel.sheet.macroenabled.12",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template",
    "application/vnd.ms-excel.sheet.binary.macroenabled.12", "application/vnd.oasis.opendocument.spreadsheet-template",
    "video/mp4", "video/quicktime", "video/3gpp", "audio/mpeg", "video/x-ms-wm", "audio/mp4", "audio/x-m4a",
    "audio/aac", "audio/x-wav",
    "application/json", "application/zip", "application/octet-stream", "text/x-adasrc", "application/x-ole-storage",
    "application/x-zip-compressed", "text/csv", "message/rfc822", "application/x-7z-compressed", "application/vnd.rar",
    "application/x-x509-ca-cert", "application/xml", "text/x-log", "application/gpx+xml", "binary/octet-stream",
    "application/octetstream", "application/postscript", "application/x-rar", "octet/stream",
    "text/tab-separated-values", "application/gzip", "application/x-dbf", "applicaton/octet-stream",
    "application/vnd.google-earth.kml+xml", "text/xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.oasis.opendocument.text",
    "application/msword", "text/plain", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/rtf", "application/vnd.apple.pages", "application/vnd.oasis.opendocument.graphics",
    "application/vnd.ms-powerpoint", "application/vnd.oasis.opendocument.presentation", "application/oxps",
    "application/vnd.apple.numbers", "application/x-iwork-pages-sffpages", "application/vnd.ms-publisher",
    "application/vnd.oasis.opendocument.text-template",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
    "application/vnd.ms-word.document.macroenabled.12",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow", "application/kswps",
    "application/x-iwork-numbers-sffnumbers", "text/rtf", "application/vnd.ms-xpsdocument",
    "application/vnd.ms-powerpoint.presentation.macroenabled.12", "application/x-msword",
    "application/vnd.oasis.opendocument.text-master", "application/x-abiword", "application/x-iwork-keynote-sffnumbers",
    "application/x-iwork-keynote-sffkey", "application/vnd.sun.xml.writer",
})

CREATE_DIRECT_UPLOAD = """mutation createDirectUpload($input: CreateDirectUploadInput!) {
  createDirectUpload(input: $input) { directUpload { url headers signedBlobId } }
}"""


class TooLarge(Exception):
    """The file grew past `MOST_BYTES` while it was read: nothing more was read."""


def refusal(size: int, content_type: str) -> str | None:
    """Why the service would refuse this file ("too_large", "type"), before anything is read."""
    if size >= MOST_BYTES:
        return "too_large"
    if content_type.split(";")[0].strip().lower() not in AUTHORIZED_CONTENT_TYPES:
        return "type"
    return None


@dataclass
class Upload:
    """A file on its way to the service: its name, type, and — once read — size and base64 MD5."""

    filename: str
    content_type: str
    size: int = 0
    checksum: str = ""
    _held: IO[bytes] = field(default_factory=lambda: tempfile.TemporaryFile(prefix="roombot-"))  # noqa: SIM115

    async def take(self, chunks: AsyncIterator[bytes]) -> None:
        """Reads the file as it comes; `TooLarge` past `MOST_BYTES` (the rest unread)."""
        digest = hashlib.md5()
        async for chunk in chunks:
            self.size += len(chunk)
            if self.size >= MOST_BYTES:
                raise TooLarge(self.filename)
            digest.update(chunk)
            self._held.write(chunk)
        self.checksum = base64.b64encode(digest.digest()).decode()

    def read_back(self) -> IO[bytes]:
        """The file held, from its start: aiohttp reads it in steps as the socket takes them (and from
        the start again if it retries the PUT on a connection lost), never whole."""
        self._held.seek(0)
        return self._held

    def close(self) -> None:
        """The bytes gone: the temporary file had no name on disk, and now has no content either."""
        self._held.close()


async def upload(service: DossierService, dossier_id: str, file: Upload, policy: RetryPolicy) -> str:
    """The signed blob id of `file`, uploaded for the dossier; nothing of the dossier changes yet."""
    try:
        data = await service.query("createDirectUpload", CREATE_DIRECT_UPLOAD, {"input": {
            "dossierId": dossier_id, "filename": file.filename[:255] or "fichier", "byteSize": file.size,
            "checksum": file.checksum, "contentType": file.content_type}}, policy=policy)
    except errors.QueryRejected as error:  # its payload has no `errors`: a read-only token's refusal comes on top
        if "seulement en lecture" in str(error):
            raise errors.ReadOnlyToken(str(error)) from None
        raise
    direct = (data.get("createDirectUpload") or {}).get("directUpload") or {}
    url, signed = str(direct.get("url") or ""), str(direct.get("signedBlobId") or "")
    try:
        headers = {str(k): str(v) for k, v in json.loads(str(direct.get("headers") or "{}")).items()}
    except (ValueError, AttributeError):
        headers = {}
    if not url.startswith(("https://", "http://")) or not signed:
        raise errors.DossierServiceUnavailable("createDirectUpload answered no upload address")
    status = await service.put(url, headers, file.read_back(), file.size)
    if not 200 <= status < 300:
        raise errors.UploadRefused(f"the storage answered {status} to the upload")
    return signed
