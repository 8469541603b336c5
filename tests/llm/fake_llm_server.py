#!/usr/bin/env python3
"""A scripted fake of the LLM APIs backendbench talks to, on loopback, for tests.

    fake_llm_server.py --script SCRIPT.json --port-file PORT --log REQUESTS.jsonl

It answers
    POST /v1/messages           as Anthropic's Messages API
    POST .../chat/completions   as an OpenAI-compatible server
    POST anything else          as BackendBench's LLM relay ({"output": ...})
    GET  /                      200, for health checks

SCRIPT.json is {"rules": [{"match": "aten::relu", "responses": [RESPONSE, ...]}, ...]}.
A request takes the first rule whose "match" is in its prompt (no "match": any
prompt) and that rule's next response; the last response repeats. A RESPONSE:
    {"text": "...", "usage": [in, out]}     a 200 answer in the API's format
    {"status": 429, "headers": {"retry-after": "1"}, "text": "..."}   an error (text in an error body)
    {"raw": "..."}                           this body as it is (broken JSON)
    {"echo_key": true, "status": 400}        an error body quoting the request's API key
    "delay_s": 5                             wait before answering (a hang)
Every request is appended to the log as one JSON line: path, headers, body.
The chosen port is written to --port-file once the server listens.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, script, log_path):
        self.rules = script.get("rules", [])
        self.used = [0] * len(self.rules)
        self.lock = threading.Lock()
        self.log_path = log_path

    def next_response(self, prompt):
        with self.lock:
            for i, rule in enumerate(self.rules):
                if rule.get("match", "") in prompt:
                    responses = rule["responses"]
                    response = responses[min(self.used[i], len(responses) - 1)]
                    self.used[i] += 1
                    return response
        return {"status": 500, "text": "the fake server has no rule for this prompt"}

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def prompt_of(body):
    messages = body.get("messages") if isinstance(body, dict) else None
    if not messages:
        return ""
    content = messages[-1].get("content", "")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def answer_body(api, text, usage):
    if api == "anthropic":
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
    if api == "openai":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
    return {"output": text}


def error_body(api, status, message):
    if api == "anthropic":
        return {"type": "error", "error": {"type": "rate_limit_error" if status == 429 else "api_error",
                                           "message": message}}
    return {"error": {"message": message, "type": "error", "code": status}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=None):
        data = body.encode() if isinstance(body, str) else body
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout)

    def do_GET(self):
        self.send(200, "{}")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode()
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        state = self.server.state
        state.log({"path": self.path, "headers": dict(self.headers.items()), "body": body})
        if self.path.endswith("/v1/messages"):
            api = "anthropic"
        elif self.path.endswith("/chat/completions"):
            api = "openai"
        else:
            api = "relay"
        response = state.next_response(prompt_of(body))
        time.sleep(response.get("delay_s", 0))
        status = response.get("status", 200)
        headers = response.get("headers", {})
        if "raw" in response:
            self.send(status, response["raw"], headers)
        elif response.get("echo_key"):
            key = self.headers.get("x-api-key") or self.headers.get("authorization", "")
            self.send(status, json.dumps(error_body(api, status, "invalid request from key " + key)), headers)
        elif status == 200:
            self.send(200, json.dumps(answer_body(api, response.get("text", ""), response.get("usage", [100, 50]))),
                      headers)
        else:
            self.send(status, json.dumps(error_body(api, status, response.get("text", "error"))), headers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    with open(args.script) as f:
        script = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(script, args.log)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
