"""Loads HTML pages one after another in one headless Chromium, driven over the DevTools
protocol on a pipe (--remote-debugging-pipe), and writes for each a screenshot, what the
console logged and the DOM as the browser built it. A Chromium start costs about two seconds:
one for all the pages instead of two per page.

Usage: chromium_pages.py CHROMIUM PROFILE_DIR PAGE.html:SHOT.png:CONSOLE.log:DOM.html...

CONSOLE.log gets one line per message, `CONSOLE <source> <level>: <text>`: console API calls,
uncaught exceptions and the browser's own messages (a resource the Content-Security-Policy
blocked, a failed load). Exit 0 when every page loaded, 2 when Chromium could not be driven.
"""
import base64
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = 60  # seconds for one page, load and screenshot


class Browser:
    def __init__(self, chromium, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def descriptors():  # the protocol's pipe is fd 3 (commands) and fd 4 (replies)
            commands, replies = os.dup(to_browser_read), os.dup(from_browser_write)  # either may be 3 or 4
            os.dup2(commands, 3, inheritable=True)
            os.dup2(replies, 4, inheritable=True)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=descriptors)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)

    def read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its protocol pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """Sends a command and returns its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        command = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self.to_browser, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.read_message(deadline)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method, session):
        deadline = time.monotonic() + TIMEOUT
        while True:
            for index, event in enumerate(self.events):
                if event["method"] == method and event.get("sessionId") == session:
                    del self.events[index]
                    return event
            message = self.read_message(deadline)
            if "method" in message:
                self.events.append(message)


def console_lines(events, session):
    """What the console logged, from the protocol's events, as `CONSOLE` lines."""
    lines = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        params = event.get("params", {})
        if event["method"] == "Runtime.consoleAPICalled":
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            lines.append("CONSOLE console-api %s: %s" % (params.get("type"), text))
        elif event["method"] == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            lines.append("CONSOLE exception error: %s" % details.get("exception", {}).get("description",
                                                                                      details.get("text")))
        elif event["method"] == "Log.entryAdded":
            entry = params.get("entry", {})
            lines.append("CONSOLE %s %s: %s" % (entry.get("source"), entry.get("level"), entry.get("text")))
    return lines


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    chromium, profile, pages = argv[0], argv[1], [page.split(":") for page in argv[2:]]
    if any(len(page) != 4 for page in pages):
        print("chromium_pages: each page is PAGE.html:SHOT.png:CONSOLE.log:DOM.html", file=sys.stderr)
        return 2
    browser = Browser(chromium, profile)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.send(domain + ".enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": 1800, "deviceScaleFactor": 1, "mobile": False}, session)
        for html, shot, log, dom in pages:
            browser.events = [e for e in browser.events if e.get("sessionId") != session]
            browser.send("Page.navigate", {"url": "file://" + os.path.abspath(html)}, session)
            browser.wait_for("Page.loadEventFired", session)
            image = browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
            with open(shot, "wb") as f:
                f.write(base64.b64decode(image))
            built = browser.send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                                      "returnByValue": True}, session)["result"]["value"]
            with open(dom, "w", encoding="utf-8") as f:
                f.write(built + "\n")
            # Messages of the load that arrive after it: one round trip collects them.
            browser.send("Runtime.evaluate", {"expression": "0"}, session)
            with open(log, "w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in console_lines(browser.events, session))
    except (OSError, RuntimeError, KeyError, ValueError) as error:
        print("chromium_pages: %s" % error, file=sys.stderr)
        return 2
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
