"""A fixture catalog of 40 realistic tools (seed 001's Windows agent and a developer's
workstation) and queries in words with the tool a person would expect first."""

from __future__ import annotations

# name, description, keywords, example requests
TOOLS: list[tuple[str, str, list[str], list[str]]] = [
    (
        "check_cpu_usage",
        "Report current CPU usage per core and the busiest processes.",
        ["cpu", "processor", "load"],
        ["why is my computer slow", "what is using the processor"],
    ),
    (
        "check_memory_usage",
        "Report RAM usage, free memory and the processes using the most memory.",
        ["memory", "ram"],
        ["how much memory is free"],
    ),
    (
        "check_disk_usage",
        "Report used and free space on every drive.",
        ["disk", "storage", "space"],
        ["is my drive full", "how much space is left"],
    ),
    (
        "check_event_logs_summary",
        "Summarise recent errors and warnings from the system event logs.",
        ["events", "logs", "errors"],
        ["any errors in the event log"],
    ),
    (
        "check_ip_address",
        "Show the machine's IP addresses, gateway and DNS servers.",
        ["ip", "network", "address"],
        ["what is my ip"],
    ),
    (
        "check_network_status",
        "Test connectivity to the gateway, DNS and the internet.",
        ["network", "internet", "connectivity", "ping"],
        ["am I online", "is the internet down"],
    ),
    (
        "check_system_uptime",
        "Show how long the system has been running since the last boot.",
        ["uptime", "boot"],
        ["when did the computer last restart"],
    ),
    (
        "search_files",
        "Find files by name pattern under a directory.",
        ["find", "files", "search"],
        ["where is my report file", "find all pdf files"],
    ),
    (
        "list_files",
        "List the files of a directory with sizes and dates.",
        ["list", "directory", "ls"],
        ["what is in my downloads folder"],
    ),
    (
        "clear_user_temp",
        "Delete temporary files from the user's temp directory.",
        ["temp", "cleanup", "clear"],
        ["clean up temporary files"],
    ),
    (
        "clear_windows_temp",
        "Delete temporary files from the Windows temp directory (administrator).",
        ["temp", "windows", "cleanup"],
        ["clear the windows temp folder"],
    ),
    (
        "execute_terminal_command",
        "Run a command in a terminal and return its output.",
        ["shell", "command", "terminal", "run"],
        ["run a shell command"],
    ),
    (
        "flush_dns_cache",
        "Flush the DNS resolver cache.",
        ["dns", "cache", "flush"],
        ["websites do not resolve", "reset dns"],
    ),
    (
        "renew_ip_address",
        "Release and renew the DHCP lease of the network adapters.",
        ["dhcp", "ip", "renew"],
        ["get a new ip address"],
    ),
    (
        "reset_network_stack",
        "Reset the TCP/IP stack and Winsock catalog (needs a restart).",
        ["winsock", "tcp", "network", "reset"],
        ["network is completely broken"],
    ),
    (
        "restart_system",
        "Restart the computer after a countdown.",
        ["reboot", "restart", "shutdown"],
        ["reboot the machine"],
    ),
    (
        "restart_whitelisted_service",
        "Restart an allowed Windows service such as the print spooler.",
        ["service", "restart", "spooler"],
        ["restart the print spooler"],
    ),
    ("open_calculator", "Open the calculator application.", ["calculator", "calc", "app"], ["open the calculator"]),
    (
        "close_program",
        "Gracefully close a running application's window and process.",
        ["close", "quit", "kill", "program"],
        ["close chrome", "terminate spotify"],
    ),
    (
        "set_volume",
        "Set the speaker volume in percent, or mute it.",
        ["volume", "sound", "mute", "audio"],
        ["turn the sound down", "mute the speakers"],
    ),
    (
        "take_screenshot",
        "Capture the screen or a window to an image file.",
        ["screenshot", "screen", "capture"],
        ["grab a picture of my screen"],
    ),
    (
        "battery_status",
        "Show battery charge, health and time remaining.",
        ["battery", "power", "charge"],
        ["how much battery is left"],
    ),
    (
        "git_log",
        "Show the recent commits of a git repository.",
        ["git", "commits", "history"],
        ["what changed recently in the repo"],
    ),
    ("git_diff", "Show uncommitted changes in a git working tree.", ["git", "diff", "changes"], ["what did I change"]),
    (
        "run_tests",
        "Run the project's test suite and summarise failures.",
        ["tests", "pytest", "ci"],
        ["do the tests pass"],
    ),
    (
        "lint_code",
        "Run the linter on the project and list the problems found.",
        ["lint", "style", "ruff"],
        ["check the code style"],
    ),
    (
        "format_json",
        "Pretty-print a JSON document with indentation.",
        ["json", "pretty", "format"],
        ["make this json readable"],
    ),
    (
        "json_pick",
        "Pick a value out of a JSON document by a dotted path.",
        ["json", "path", "extract"],
        ["get the name field from this json"],
    ),
    (
        "http_status",
        "Explain an HTTP status code and what a client should do next.",
        ["http", "status", "rest"],
        ["what does a 429 mean"],
    ),
    (
        "unit_convert",
        "Convert lengths, masses and temperatures between metric and imperial units.",
        ["units", "convert", "metric"],
        ["how many pounds is 3 kg"],
    ),
    ("slugify", "Turn a title into a URL slug.", ["slug", "url", "permalink"], ["make a url out of this title"]),
    ("semver_bump", "Bump a semantic version number.", ["semver", "version", "release"], ["what comes after 2.3.1"]),
    (
        "commit_message",
        "Format a commit message in the Conventional Commits style.",
        ["commit", "message", "git"],
        ["write a commit message"],
    ),
    (
        "markdown_table",
        "Render rows of values as a Markdown table.",
        ["markdown", "table"],
        ["turn this data into a table"],
    ),
    (
        "word_count",
        "Count the words, lines and characters of a text.",
        ["words", "count", "wc"],
        ["how long is this text"],
    ),
    (
        "weather_forecast",
        "Get the weather forecast for a city for the next days.",
        ["weather", "forecast", "rain"],
        ["will it rain tomorrow"],
    ),
    ("translate_text", "Translate a text into another language.", ["translate", "language"], ["say this in french"]),
    (
        "send_email",
        "Send an email with a subject and body to a recipient.",
        ["email", "mail", "send"],
        ["email the report to my boss"],
    ),
    (
        "create_calendar_event",
        "Create an event in the calendar with a title, start and end.",
        ["calendar", "meeting", "event", "schedule"],
        ["book a meeting on friday"],
    ),
    (
        "timezone_convert",
        "Convert a time from one time zone to another.",
        ["timezone", "time", "utc"],
        ["what time is 3pm london in tokyo"],
    ),
]

# query, the tool expected first
QUERIES: list[tuple[str, str]] = [
    ("my computer is really slow", "check_cpu_usage"),
    ("is the disk full", "check_disk_usage"),
    ("find the budget spreadsheet file", "search_files"),
    ("delete temp files", "clear_user_temp"),
    ("reboot", "restart_system"),
    ("websites will not load, dns problem", "flush_dns_cache"),
    ("quit firefox", "close_program"),
    ("mute the sound", "set_volume"),
    ("how much charge does the battery have", "battery_status"),
    ("show recent commits", "git_log"),
    ("pretty print json", "format_json"),
    ("convert 10 miles to km", "unit_convert"),
    ("next release version number", "semver_bump"),
    ("schedule a meeting with the team", "create_calendar_event"),
    ("rain forecast for Berlin", "weather_forecast"),
    ("what is my ip address", "check_ip_address"),
    ("restart the print spooler service", "restart_whitelisted_service"),
    ("count words in my essay", "word_count"),
    ("translate this to spanish", "translate_text"),
    ("any errors in the logs", "check_event_logs_summary"),
    ("grab an image of the window", "take_screenshot"),
    ("ram", "check_memory_usage"),
]

#: Paraphrases that share no word with the tool a person means: BM25 has no synonyms, so these
#: are known misses, counted in the reported hit rate all the same.
PARAPHRASES: list[tuple[str, str]] = [
    ("my laptop is about to die, how long do I have", "battery_status"),
    ("the wifi works but nothing loads", "check_network_status"),
    ("what did I modify since the last commit", "git_diff"),
]
