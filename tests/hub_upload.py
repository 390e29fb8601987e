"""A minimal Hub *upload* endpoint on loopback, written for the tests because no real server that accepts uploads exists here.

``olah`` (tests/hub_server.py) is a read-only mirror. This server answers the
four requests ``huggingface_hub.HfApi.upload_folder`` makes, as the Hub's
API defines them: ``POST /api/repos/create``, ``POST /api/validate-yaml`` (the card's YAML
must parse), ``POST /api/datasets/<repo>/
preupload/<rev>`` (every file is answered ``regular``: its bytes come inline)
and ``POST /api/datasets/<repo>/commit/<rev>`` (NDJSON: a header line, then
one base64 ``file`` line per file and one ``deletedFile`` line per file to
remove). The files are written into (or removed from) the olah mirror's git
repo for ``<repo>`` and committed, so what was uploaded is then read back
through the real olah server by plain ``datasets.load_dataset``. ``GET``
requests -- the repo tree ``upload_folder(delete_patterns=...)`` lists first --
are passed on to the real olah server and its answer returned as is (listed
in ``proxied``). Any other request is answered 404 and recorded in
``unknown``, so a test sees a route the client needed and this server lacks.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hub_server import HubServer


class UploadServer:
    """Accepts uploads and commits them into ``hub``'s mirror repos; ``endpoint`` is its base URL."""

    def __init__(self, hub: HubServer) -> None:
        self.hub, self.unknown, self.commits, self.proxied = hub, [], [], []
        self.garbled_reads = False  # True: every GET is answered with text that is not JSON
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet: the test reads `unknown` and `commits`
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts[:3] == ["api", "repos", "create"]:
                    request = json.loads(body)
                    repo_id = f"{request.get('organization') or 'user'}/{request['name']}" if "/" not in request["name"] else request["name"]
                    owner.create(repo_id)
                    return self._json({"url": f"{owner.endpoint}/datasets/{repo_id}", "name": repo_id})
                if parts == ["api", "validate-yaml"]:
                    # The Hub checks a card's YAML header before a commit; here it must at least parse.
                    import yaml

                    content = json.loads(body)["content"]
                    header = content.split("---\n", 2)[1] if content.startswith("---\n") else ""
                    try:
                        yaml.safe_load(header)
                    except yaml.YAMLError as error:
                        return self._json({"errors": [{"message": f"invalid YAML: {error}"}]}, status=400)
                    return self._json({"errors": [], "warnings": []})
                if len(parts) >= 6 and parts[:2] == ["api", "datasets"] and parts[4] == "preupload":
                    files = json.loads(body)["files"]
                    return self._json({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False, "oid": None}
                                                 for f in files]})
                if len(parts) >= 6 and parts[:2] == ["api", "datasets"] and parts[4] == "commit":
                    repo_id = f"{parts[2]}/{parts[3]}"
                    commit = owner.commit(repo_id, [json.loads(line) for line in body.splitlines() if line.strip()])
                    return self._json({"commitUrl": f"{owner.endpoint}/datasets/{repo_id}/commit/{commit}",
                                       "commitOid": commit, "pullRequestUrl": None})
                owner.unknown.append(("POST", self.path))
                self._json({"error": "not served"}, status=404)

            def do_GET(self):
                import httpx

                owner.proxied.append(self.path)
                if owner.garbled_reads:  # a fault olah cannot be made to show: an answer that is not JSON
                    return self._json_text(b"<html>not the Hub API</html>")
                forwarded = {key: value for key, value in self.headers.items() if key.lower() in ("authorization", "accept")}
                answer = httpx.get(owner.hub.endpoint + self.path, headers=forwarded, timeout=30, follow_redirects=True)
                self.send_response(answer.status_code)
                for key in ("Content-Type", "Link", "X-Repo-Commit", "ETag"):
                    if key in answer.headers:
                        self.send_header(key, answer.headers[key])
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def _json_text(self, data: bytes):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _json(self, payload, status=200):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def create(self, repo_id: str) -> None:
        folder = self.hub.repo_dir(repo_id)
        if not folder.exists():
            folder.mkdir(parents=True)
            self.hub.git(repo_id, "init", "--quiet", "--initial-branch=main")
            self.hub.commit(repo_id, "create")

    def commit(self, repo_id: str, lines: list[dict]) -> str:
        self.create(repo_id)
        folder = self.hub.repo_dir(repo_id)
        message = "upload"
        for line in lines:
            if line["key"] == "header":
                message = line["value"].get("summary") or message
            elif line["key"] in ("file", "deletedFile"):
                value = line["value"]
                target = folder / value["path"]
                if not target.resolve().is_relative_to(folder.resolve()) or ".git" in Path(value["path"]).parts:
                    raise ValueError(f"upload path leaves the repo: {value['path']}")
                if line["key"] == "deletedFile":
                    target.unlink()
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(base64.b64decode(value["content"]))
            else:
                raise ValueError(f"commit operation {line['key']!r} is not served by this test server")
        commit = self.hub.commit(repo_id, message)
        self.commits.append((repo_id, commit))
        return commit

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
