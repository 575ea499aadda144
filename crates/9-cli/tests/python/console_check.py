"""Drives the web console of a running `sluice server` in headless Chromium.

Usage: console_check.py BASE_URL TOKEN DESTINATION OUT_DIR

Signs in with the token, finds the destination, waits for its read
position to move (the caller writes rows meanwhile) and for its lag
sparkline to hold samples, checks the Canal client's cursor, stops it,
resets the client's cursor (refused first without the confirmation), starts
it (checking the state on the page and through the API), asks for a
snapshot of shop.orders and sees its progress, reads the message of a refused
release (no ZooKeeper) and of a wrong token. Screenshots go to OUT_DIR.
Exits non-zero, with the reason, on the first check that fails.
"""

import json
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

base, token, destination, out = sys.argv[1:5]
base = base.rstrip("/")


def api(path):
    request = urllib.request.Request(
        base + path, headers={"Authorization": "Bearer " + token}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def shot(driver, name):
    path = os.path.join(out, name + ".png")
    driver.save_screenshot(path)
    print("screenshot", path, flush=True)


options = webdriver.ChromeOptions()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for arg in [
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--window-size=1280,1000",
]:
    options.add_argument(arg)
service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
driver = webdriver.Chrome(options=options, service=service)
wait = WebDriverWait(driver, 30)


def card():
    return driver.find_element(By.ID, "dest-" + destination)


def text(selector):
    return card().find_element(By.CSS_SELECTOR, selector).text


def message():
    return driver.find_element(By.ID, "message").text


def state_is(state):
    def check(_):
        try:
            return card().get_attribute("data-state") == state
        except Exception:
            return False

    return check


try:
    # The page loads without a token; its data calls need one.
    driver.get(base + "/")
    wait.until(ec.visibility_of_element_located((By.ID, "login")))
    wait.until(lambda d: "401" in message())
    print("before signing in:", message(), flush=True)
    shot(driver, "01-sign-in")

    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "sign-in").click()
    wait.until(lambda d: d.find_elements(By.ID, "dest-" + destination))
    wait.until(state_is("running"))
    assert driver.execute_script(
        "return sessionStorage.getItem('sluice.admin.token')"
    ) == token, "the token is not in sessionStorage"
    assert not driver.get_cookies(), driver.get_cookies()

    # The read position moves as the caller writes rows.
    wait.until(lambda d: text(".read") not in ("", "–"))
    first = text(".read")
    print("read position:", first, "lag:", text(".lag"), flush=True)
    WebDriverWait(driver, 60).until(lambda d: text(".read") != first)
    print("read position moved to:", text(".read"), flush=True)
    # The sparkline draws the lag samples (one every 5 s).
    def sparkline():
        return card().find_element(By.CSS_SELECTOR, ".spark polyline").get_attribute("points").split()

    WebDriverWait(driver, 30).until(lambda d: len(sparkline()) >= 2)
    print("lag sparkline:", " ".join(sparkline()), flush=True)
    # The Canal client, with its cursor.
    client_row = "tr[data-client='1001'] td"
    wait.until(lambda d: len(card().find_elements(By.CSS_SELECTOR, client_row)) == 4
               and card().find_elements(By.CSS_SELECTOR, client_row)[2].text.startswith("binlog."))
    print("client:", [c.text for c in card().find_elements(By.CSS_SELECTOR, client_row)], flush=True)
    shot(driver, "02-running")

    # Stop, with its confirmation; the page and the API agree.
    card().find_element(By.CSS_SELECTOR, "button[data-action=stop]").click()
    wait.until(ec.alert_is_present())
    driver.switch_to.alert.accept()
    wait.until(state_is("stopped"))
    assert api("/destinations/" + destination)["state"] == "stopped"
    assert "Stop of " + destination + ": done" in message(), message()

    # A cursor reset goes ahead only with the destination's name typed in.
    card().find_element(By.CSS_SELECTOR, "details.reset summary").click()
    form = card().find_element(By.CSS_SELECTOR, ".reset-form")
    form.find_element(By.CSS_SELECTOR, ".reset-journal").send_keys("binlog.000001")
    form.find_element(By.CSS_SELECTOR, ".reset-position").send_keys("4")
    form.find_element(By.CSS_SELECTOR, ".reset-confirm").send_keys("not-" + destination)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "refused" in message())
    print("reset without confirmation:", message(), flush=True)
    assert "400" in message() and "confirm" in message(), message()
    confirm = form.find_element(By.CSS_SELECTOR, ".reset-confirm")
    confirm.clear()
    confirm.send_keys(destination)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "reset to" in message())
    print("reset:", message(), flush=True)
    assert "binlog.000001:4" in message(), message()
    shot(driver, "03-stopped-and-reset")

    card().find_element(By.CSS_SELECTOR, "button[data-action=start]").click()
    wait.until(state_is("running"))
    WebDriverWait(driver, 30).until(
        lambda d: api("/destinations/" + destination)["state"] == "running"
    )
    print("stopped and started through the buttons", flush=True)

    # A snapshot of a named table, its progress on the page.
    card().find_element(By.CSS_SELECTOR, ".snapshot-tables").send_keys("shop.orders")
    card().find_element(By.CSS_SELECTOR, ".snapshot-form button[type=submit]").click()
    wait.until(lambda d: "Snapshot of shop.orders of " + destination + ": done" in message())
    WebDriverWait(driver, 60).until(lambda d: "1/1 tables" in text(".snapshot-text"))
    print("snapshot:", text(".snapshot-text"), flush=True)
    assert api("/destinations/" + destination)["snapshot"]["tables"] == 1
    shot(driver, "04-snapshot")

    # A refused action shows the API's reason.
    card().find_element(By.CSS_SELECTOR, "button[data-action=release]").click()
    wait.until(ec.alert_is_present())
    driver.switch_to.alert.accept()
    wait.until(lambda d: "refused" in message())
    refused = message()
    print("release:", refused, flush=True)
    assert "409" in refused and "ZooKeeper" in refused, refused
    shot(driver, "05-release-refused")

    # A wrong token: signed out, the API's reason shown.
    driver.find_element(By.ID, "sign-out").click()
    driver.find_element(By.ID, "token").send_keys("not-the-token")
    driver.find_element(By.ID, "sign-in").click()
    wait.until(lambda d: "wrong token" in message())
    print("wrong token:", message(), flush=True)
    assert not driver.find_elements(By.ID, "dest-" + destination)
    shot(driver, "06-wrong-token")
    print("console check passed", flush=True)
except Exception:
    try:
        shot(driver, "failure")
        print(driver.page_source[:4000], file=sys.stderr)
        for entry in driver.get_log("browser"):
            print("browser:", entry, file=sys.stderr)
    except Exception:
        pass
    raise
finally:
    driver.quit()
