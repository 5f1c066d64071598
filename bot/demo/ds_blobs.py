"""The dossier service's stand-in's direct uploads (ds-graphql.md §10.4 "Attachments"), as
ActiveStorage keeps them: `createDirectUpload` records a blob's declared name, size, type and
base64 MD5 and answers where to PUT it (with the headers to send: the storage refuses bytes whose
Content-MD5 differs from the body, as S3 does), and a signed id. An act given a signed id checks the
blob before anything else (`validate_blob`), with the service's three refusals.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

NOT_UPLOADED = "Le fichier n\u2019a pas été correctement téléversé sur le serveur de stockage"
BAD_ID = "L\u2019identifiant du fichier téléversé est invalide"
BAD_HASH = "Le hash du fichier téléversé est invalide"
_SECRET = b"stand-in signing key"


@dataclass
class Blob:
    filename: str
    size: int
    checksum: str
    content_type: str
    data: bytes | None = None


class Blobs:
    def __init__(self) -> None:
        self.kept: dict[int, Blob] = {}
        self.corrupt = False  # the storage keeps other bytes than it was sent (the hash check then fails)
        self.puts: list[int] = []  # the blobs PUT, in order
        self.storage = ""  # where the bytes go, when not beside the service (a test's own storage)

    def create(self, given: dict[str, Any], storage: str) -> dict[str, Any]:
        number = len(self.kept) + 1
        self.kept[number] = Blob(str(given["filename"]), int(given["byteSize"]), str(given["checksum"]), str(given["contentType"]))
        headers = {"Content-Type": given["contentType"], "Content-MD5": given["checksum"],
                   "Content-Disposition": f"inline; filename=\"{given['filename']}\""}
        return {"directUpload": {"url": f"{storage}/{number}", "headers": json.dumps(headers), "blobId": str(number),
                                 "signedBlobId": _signed(number)}}

    def store(self, number: int, body: bytes, headers: dict[str, str]) -> int:
        """A PUT to the storage: 200, or 400 when the body is not what its Content-MD5 says (S3's BadDigest);
        as S3 refuses a signed PUT with no length or a chunked one (411 MissingContentLength), and one that
        brings a token besides the signature (400 InvalidArgument)."""
        blob = self.kept.get(number)
        if blob is None:
            return 404
        if "content-length" not in headers or "transfer-encoding" in headers:
            return 411
        if "authorization" in headers:
            return 400
        if headers.get("content-md5") != base64.b64encode(hashlib.md5(body).digest()).decode():
            return 400
        self.puts.append(number)
        blob.data = body + b"!" if self.corrupt else body
        return 200

    def refusal(self, signed: str) -> str | None:
        """`validate_blob`: the service's refusal of a signed id, or None for a blob uploaded whole."""
        number = signed.partition("--")[0]
        if not number.isdecimal() or not hmac.compare_digest(_signed(int(number)), signed) or int(number) not in self.kept:
            return BAD_ID
        blob = self.kept[int(number)]
        if blob.data is None:
            return NOT_UPLOADED
        if base64.b64encode(hashlib.md5(blob.data).digest()).decode() != blob.checksum:
            return BAD_HASH
        return None

    def name(self, signed: str) -> str:
        return self.kept[int(signed.partition("--")[0])].filename


def _signed(number: int) -> str:
    return f"{number}--{hmac.new(_SECRET, str(number).encode(), 'sha256').hexdigest()[:20]}"
