"""Task templates of the sample corpus: sibling instructions that differ in one detail.

Each template has an instruction with a ``{d}`` slot for the success-relevant
detail, a pool of values for it and the *beats* of its trajectory. No pool
value is a substring of another (case-insensitively), so a negative that types
its detail never shows the shown instruction's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Beat kinds: ("open", app_index) switches to an application; ("type", text)
# clicks into the document and types; ("hotkey", keys) / ("press", keys) send
# keys. Text may use {d} (the detail), {dl} (lower case) and {x} (the value's
# extra, e.g. a translation). A beat whose text has no {d} is optional and is
# dropped first when a trajectory is short.
Beat = tuple


@dataclass(frozen=True)
class TaskTemplate:
    category: str
    subcategory: str | None  # None: the JSON omits the key (null values are dropped)
    task_type: str
    applications: tuple[str, ...]
    document: str
    instruction: str
    detail_kind: str
    values: tuple[str, ...]
    beats: tuple[Beat, ...]
    side_panel: tuple[str, ...]
    extras: dict[str, str] = field(default_factory=dict)
    picker: str | None = None  # title of a list the detail can be picked from ("selected" mode)
    neutral: str = "it"  # words that stand in for a picked detail inside free text
    reform: str | None = None  # key of _REFORMS: the detail in another surface form ("reformatted" mode)

    def render(self, text: str, detail: str, surface: str | None = None) -> str:
        """``text`` with its slots filled; ``surface`` replaces the detail's own spelling when given."""
        shown = detail if surface is None else surface
        return text.format(d=shown, dl=shown.lower(), x=self.extras.get(detail, ""))

    @property
    def modes(self) -> tuple[str, ...]:
        """The evidence modes this task supports (:class:`~agenthorizon.release.sample.trajectories.Evidence`)."""
        modes = ["typed", "corrected"]
        if self.picker is not None:
            modes.append("selected")
        if self.reform is not None:
            modes.append("reformatted")
        return tuple(modes)

    def alternate(self, detail: str) -> str:
        """The detail as the application wants it typed: another surface form, the same value.

        >>> next(t for t in TEMPLATES if t.reform == "date_dots").alternate("December 1, 2025")
        '01.12.2025'
        """
        if self.reform is None:
            raise ValueError(f"task {self.document!r} has no other surface form for its {self.detail_kind}")
        return _REFORMS[self.reform](detail)

    def options(self, detail: str, count: int = 5) -> tuple[str, ...]:
        """The entries of the picker list around ``detail`` (the detail always among them)."""
        at = self.values.index(detail)
        start = max(0, min(at - count // 2, len(self.values) - count))
        return self.values[start : start + count]


_NAMES = (
    "Priya Raman", "Jonas Weber", "Mei Tanaka", "Carlos Mendes", "Aisha Okafor",
    "Lukas Novak", "Sofia Rossi", "Daniel Kim", "Elena Petrova", "Tomasz Zielinski",
)
_DATES = (
    "March 14, 2025", "April 2, 2025", "May 19, 2025", "June 30, 2025",
    "October 7, 2025", "December 1, 2025", "February 23, 2026", "August 18, 2025",
)
_MONTH_NUMBERS = {name: number for number, name in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
     "November", "December"), start=1)}
_COUNTRY_CODES = {"Portugal": "PT", "Norway": "NO", "Chile": "CL", "Vietnam": "VN", "Kenya": "KE",
                  "Canada": "CA", "Ireland": "IE", "Mexico": "MX"}


def _date_dots(value: str) -> str:
    month, day, year = value.replace(",", "").split()
    return f"{int(day):02d}.{_MONTH_NUMBERS[month]:02d}.{year}"


def _display_name(address: str) -> str:
    return " ".join(part.capitalize() for part in address.split("@")[0].split("."))


def _initial(name: str) -> str:
    first, last = name.split(" ", 1)
    return f"{first[0]}. {last}"


# The same value in the surface form an application or a locale uses: what a
# careful reader recognises and an exact string match does not.
_REFORMS = {
    "date_dots": _date_dots,  # March 14, 2025 -> 14.03.2025 (day-first with dots)
    "european_number": lambda value: value.replace(",", "."),  # 12,500 -> 12.500
    "pixels": lambda value: f"{value}px",  # 1280 -> 1280px
    "timecode_frames": lambda value: f"{value}:00",  # 00:01:45 -> 00:01:45:00 (frames)
    "display_name": _display_name,  # priya.raman@northwind.io -> Priya Raman (address book)
    "initial": _initial,  # Priya Raman -> P. Raman
    "file_stem": lambda value: value.rsplit(".", 1)[0],  # board_update.odt -> board_update (type chosen in the dialog)
    "country_code": _COUNTRY_CODES.__getitem__,  # Portugal -> PT (the column stores ISO codes)
}

_EMAILS = tuple(name.lower().replace(" ", ".") + "@northwind.io" for name in _NAMES)

TEMPLATES: tuple[TaskTemplate, ...] = (
    # --- Data Science -----------------------------------------------------------
    TaskTemplate(
        "Data Science", "Spreadsheet analysis", "DATA_SCIENCE", ("LibreOffice Calc", "Firefox"),
        "regional_sales.ods",
        "Open regional_sales.ods in LibreOffice Calc, filter the table to the {d} region and "
        "copy the filtered rows into a new sheet.",
        "region", ("Northwest", "Southeast", "Midlands", "Baltic Coast", "Great Lakes", "Andalusia", "Bavaria", "Patagonia"),
        (("open", 0), ("hotkey", ("ctrl", "shift", "l")), ("type", "{d}"), ("press", ("enter",)),
         ("hotkey", ("ctrl", "c")), ("hotkey", ("shift", "f11")), ("hotkey", ("ctrl", "v")), ("hotkey", ("ctrl", "s"))),
        ("Sheet: Sales", "Sheet: Targets", "Column: region", "Column: revenue", "Column: units"),
        picker="Standard filter: region", neutral="the chosen region",
    ),
    TaskTemplate(
        "Data Science", "Data visualization", "DATA_SCIENCE", ("JupyterLab", "Firefox"),
        "revenue.ipynb",
        "In JupyterLab, plot the monthly revenue from revenue.csv as a line chart and export the figure "
        "as a {d} file named revenue_chart.",
        "format", ("PNG", "SVG", "PDF", "JPEG", "WEBP", "TIFF"),
        (("open", 0), ("type", "df = pd.read_csv('revenue.csv')"), ("hotkey", ("shift", "enter")),
         ("type", "ax = df.plot(x='month', y='revenue', title='Monthly revenue')"),
         ("type", "ax.figure.savefig('revenue_chart.{dl}', format='{dl}', bbox_inches='tight')  # export for the report"),
         ("hotkey", ("shift", "enter"))),
        ("revenue.csv", "revenue.ipynb", "README.md", "data/", "figures/"),
        picker="Export figure: file type", neutral="the chosen format",
    ),
    TaskTemplate(
        "Data Science", "Statistics", "DATA_SCIENCE", ("RStudio", "LibreOffice Calc"),
        "survey_analysis.R",
        "Using RStudio, compute the mean score of the participants older than {d} in survey.csv "
        "and paste the result into the summary sheet in LibreOffice Calc.",
        "age threshold", ("35", "42", "57", "63", "28", "71", "46"),
        (("open", 0), ("type", "survey <- read.csv('survey.csv')"), ("press", ("enter",)),
         ("type", "mean(survey$score[survey$age > {d}])"), ("press", ("enter",)), ("open", 1),
         ("hotkey", ("ctrl", "v")), ("hotkey", ("ctrl", "s"))),
        ("survey.csv", "survey_analysis.R", "Environment", "History", "Plots"),
    ),
    TaskTemplate(
        "Data Science", "Data cleaning", "DATA_SCIENCE", ("DBeaver", "Terminal"),
        "customers.sql",
        "In DBeaver, delete the rows of the customers table whose country is {d}, then export "
        "the remaining rows to customers_clean.csv.",
        "country", ("Portugal", "Norway", "Chile", "Vietnam", "Kenya", "Canada", "Ireland", "Mexico"),
        (("open", 0), ("type", "DELETE FROM customers WHERE country = '{d}';"), ("hotkey", ("ctrl", "enter")),
         ("type", "SELECT * FROM customers ORDER BY id;"), ("hotkey", ("ctrl", "enter")), ("open", 1),
         ("type", "head customers_clean.csv")),
        ("crm_db", "Tables", "customers", "orders", "invoices", "Views"),
        picker="Filter: country", neutral="the chosen country", reform="country_code",
    ),
    # --- Creativity ---------------------------------------------------------------
    TaskTemplate(
        "Creativity", "Image editing", "CREATIVITY", ("GIMP", "Files"),
        "beach.jpg",
        "In GIMP, open beach.jpg, scale it to {d} pixels wide keeping the aspect ratio and export it "
        "as beach_small.png.",
        "width", ("640", "800", "1280", "1024", "720", "960"),
        (("open", 1), ("open", 0), ("type", "{d}"), ("press", ("tab",)), ("press", ("enter",)),
         ("hotkey", ("ctrl", "shift", "e")), ("type", "beach_small.png"), ("press", ("enter",))),
        ("Layers", "Channels", "Paths", "Brushes", "Patterns"),
        reform="pixels",
    ),
    TaskTemplate(
        "Creativity", "Vector graphics", "CREATIVITY", ("Inkscape", "Files"),
        "poster.svg",
        "In Inkscape, add the caption \"{d}\" under the logo in poster.svg and save the file.",
        "caption", ("Spring Open House", "Summer Jazz Night", "Autumn Book Fair", "Winter Coding Camp",
                    "Harvest Market Day", "City Science Week"),
        (("open", 0), ("press", ("t",)), ("type", "{d}"), ("press", ("escape",)), ("hotkey", ("ctrl", "s"))),
        ("Objects", "Layer 1", "logo", "background", "Fill and Stroke"),
    ),
    TaskTemplate(
        "Creativity", "Video editing", "CREATIVITY", ("Kdenlive", "VLC media player"),
        "interview.kdenlive",
        "In Kdenlive, trim interview.mp4 so that it ends at {d}, render it, and play the result in "
        "VLC media player.",
        "timecode", ("00:01:45", "00:02:30", "00:03:15", "00:04:05", "00:05:50", "00:06:20"),
        (("open", 0), ("type", "{d}"), ("press", ("enter",)), ("hotkey", ("ctrl", "enter")),
         ("type", "interview_trimmed"), ("open", 1), ("press", ("space",))),
        ("Project Bin", "interview.mp4", "music.ogg", "Effects", "Transitions"),
        reform="timecode_frames",
    ),
    TaskTemplate(
        "Creativity", "Presentation design", "CREATIVITY", ("LibreOffice Impress", "Firefox"),
        "pitch.odp",
        "In LibreOffice Impress, change the title of the first slide of pitch.odp to \"{d}\" and export "
        "the deck as PDF.",
        "title", ("Project Aurora", "Project Beacon", "Project Cedar", "Project Delta", "Project Ember",
                  "Project Falcon"),
        (("open", 0), ("hotkey", ("ctrl", "a")), ("type", "{d}"), ("press", ("escape",)),
         ("type", "pitch.pdf"), ("press", ("enter",))),
        ("Slide 1", "Slide 2", "Slide 3", "Slide 4", "Master Slides"),
    ),
    # --- Education ------------------------------------------------------------------
    TaskTemplate(
        "Education", "Course management", "EDUCATION", ("Firefox", "Thunderbird"),
        "Course settings",
        "On the course site in Firefox, move the due date of the essay assignment to {d}, then email "
        "the class list about the change from Thunderbird.",
        "date", _DATES,
        (("open", 0), ("type", "{d}"), ("press", ("enter",)), ("open", 1), ("type", "Essay due date changed"),
         ("type", "Hello everyone, the essay is now due on {d}. Please plan your submissions accordingly "
                  "and write to me with any questions.")),
        ("Course home", "Assignments", "Grades", "Participants", "Calendar"),
        picker="Due date", neutral="the date shown on the course page", reform="date_dots",
    ),
    TaskTemplate(
        "Education", "Note taking", "EDUCATION", ("Obsidian",),
        "Study vault",
        "In Obsidian, create a note called \"{d}\" with a bullet list of this week's three readings.",
        "note title", ("Cell Biology Notes", "Roman History Notes", "Linear Algebra Notes",
                       "Organic Chemistry Notes", "Microeconomics Notes", "Poetry Seminar Notes"),
        (("open", 0), ("hotkey", ("ctrl", "n")), ("type", "{d}"), ("press", ("enter",)),
         ("type", "- Reading one: chapter overview and key terms for {d}, with questions to bring to the "
                  "seminar on Thursday")),
        ("Inbox", "Courses", "Readings", "Templates", "Archive"),
    ),
    TaskTemplate(
        "Education", "Grading", "EDUCATION", ("LibreOffice Calc", "Thunderbird"),
        "grades.ods",
        "In grades.ods, change the final grade of {d} to an A and send {d} a confirmation email from "
        "Thunderbird.",
        "student", _NAMES,
        (("open", 0), ("hotkey", ("ctrl", "f")), ("type", "{d}"), ("press", ("enter",)), ("type", "A"),
         ("hotkey", ("ctrl", "s")), ("open", 1), ("type", "{d}"),
         ("type", "Dear {d}, your final grade for the course has been updated to an A. Congratulations "
                  "on a strong term.")),
        ("Sheet: Final", "Sheet: Midterm", "Sheet: Attendance", "Column: student", "Column: grade"),
        picker="Students", neutral="student", reform="initial",
    ),
    TaskTemplate(
        "Education", "Language learning", "EDUCATION", ("Anki", "Firefox"),
        "Decks",
        "In Anki, add a card to the {d} deck with the word \"library\" on the front and its translation "
        "on the back.",
        "deck", ("Spanish Vocabulary", "German Vocabulary", "French Vocabulary", "Italian Vocabulary",
                 "Dutch Vocabulary", "Portuguese Vocabulary"),
        (("open", 0), ("type", "{d}"), ("press", ("enter",)), ("type", "library"), ("press", ("tab",)),
         ("type", "{x}"), ("hotkey", ("ctrl", "enter"))),
        ("Default", "Spanish Vocabulary", "German Vocabulary", "Statistics", "Browse"),
        picker="Deck", neutral="the chosen deck",
        extras={"Spanish Vocabulary": "biblioteca", "German Vocabulary": "Bibliothek",
                "French Vocabulary": "bibliotheque", "Italian Vocabulary": "biblioteca civica",
                "Dutch Vocabulary": "bibliotheek", "Portuguese Vocabulary": "biblioteca publica"},
    ),
    # --- General ----------------------------------------------------------------------
    TaskTemplate(
        "General", "Web browsing", "GENERAL", ("Firefox",),
        "Weather forecast",
        "In Firefox, open the ten-day weather forecast for {d} and bookmark it in the Travel folder.",
        "city", ("Lisbon", "Helsinki", "Montreal", "Osaka", "Nairobi", "Valparaiso", "Edinburgh", "Ljubljana"),
        (("open", 0), ("hotkey", ("ctrl", "l")), ("type", "weather {d} ten day forecast"), ("press", ("enter",)),
         ("hotkey", ("ctrl", "d")), ("type", "Travel")),
        ("Bookmarks", "Travel", "News", "Work", "Recipes"),
        picker="Saved locations", neutral="my saved city",
    ),
    TaskTemplate(
        "General", "File management", "GENERAL", ("Files", "Terminal"),
        "Downloads",
        "Move every PDF in Downloads into a new folder named \"{d}\" inside Documents.",
        "folder name", ("Tax Returns", "Insurance Papers", "Lease Documents", "Medical Records",
                        "Car Receipts", "Warranty Cards"),
        (("open", 0), ("open", 1), ("type", "mkdir -p ~/Documents/'{d}'"), ("press", ("enter",)),
         ("type", "mv ~/Downloads/*.pdf ~/Documents/'{d}'/ && ls ~/Documents/'{d}'"), ("press", ("enter",))),
        ("Home", "Documents", "Downloads", "Pictures", "Trash"),
    ),
    TaskTemplate(
        "General", None, "GENERAL", ("Settings",),
        "Date and Time",
        "Open Settings and set the system time zone to {d}.",
        "time zone", ("Europe/Berlin", "America/Chicago", "Asia/Singapore", "Australia/Perth",
                      "America/Bogota", "Africa/Cairo"),
        (("open", 0), ("type", "time zone"), ("press", ("enter",)), ("type", "{d}"), ("press", ("enter",))),
        ("Network", "Display", "Sound", "Date and Time", "Users"),
        picker="Time zone", neutral="the chosen zone",
    ),
    TaskTemplate(
        "General", "Travel planning", "GENERAL", ("Firefox", "Calendar"),
        "Rail booking",
        "Book the earliest morning train to Geneva on {d} in Firefox and add the trip to Calendar.",
        "date", _DATES,
        (("open", 0), ("type", "Geneva"), ("press", ("tab",)), ("type", "{d}"), ("press", ("enter",)),
         ("open", 1), ("type", "Train to Geneva on {d}")),
        ("Search", "Trips", "Tickets", "Account", "Help"),
        picker="Travel date", neutral="the booked day", reform="date_dots",
    ),
    # --- Productivity ---------------------------------------------------------------------
    TaskTemplate(
        "Productivity", "Email", "PRODUCTIVITY", ("LibreOffice Writer", "Thunderbird", "Files"),
        "minutes.odt",
        "Export minutes.odt from LibreOffice Writer as PDF and email it to {d} with the subject "
        "\"Meeting minutes\".",
        "recipient", _EMAILS,
        (("open", 0), ("hotkey", ("ctrl", "shift", "e")), ("press", ("enter",)), ("open", 1), ("type", "{d}"),
         ("type", "Meeting minutes"),
         ("type", "Hi, please find attached the minutes of today's meeting. Let me know if anything is "
                  "missing before Friday.")),
        ("Inbox", "Drafts", "Sent", "Archive", "Projects"),
        picker="Address book", neutral="the chosen contact", reform="display_name",
    ),
    TaskTemplate(
        "Productivity", "Calendar", "PRODUCTIVITY", ("Calendar", "Thunderbird"),
        "Budget review",
        "Schedule a half-hour meeting titled \"Budget review\" on {d} at ten in the morning and invite the "
        "finance team.",
        "date", _DATES,
        (("open", 0), ("hotkey", ("ctrl", "n")), ("type", "Budget review"), ("type", "{d}"),
         ("type", "finance-team@northwind.io"), ("press", ("enter",))),
        ("My calendars", "Work", "Personal", "Holidays", "Tasks"),
        picker="Date", neutral="the chosen day", reform="date_dots",
    ),
    TaskTemplate(
        "Productivity", "Documents", "PRODUCTIVITY", ("LibreOffice Writer", "Files"),
        "contract.odt",
        "In LibreOffice Writer, replace every occurrence of \"ACME Corp\" with \"{d}\" in contract.odt and "
        "save it.",
        "company", ("Globex Ltd", "Initech GmbH", "Umbrella Labs", "Stark Logistics", "Wayne Analytics",
                    "Tyrell Systems"),
        (("open", 0), ("hotkey", ("ctrl", "h")), ("type", "ACME Corp"), ("press", ("tab",)), ("type", "{d}"),
         ("press", ("enter",)), ("hotkey", ("ctrl", "s"))),
        ("Navigator", "Headings", "Tables", "Images", "Comments"),
    ),
    TaskTemplate(
        "Productivity", "Documents", "PRODUCTIVITY", ("LibreOffice Writer", "Files"),
        "Untitled 1",
        "Write a short status update in LibreOffice Writer and save it as {d} in the Documents folder.",
        "file name", ("q3_summary_final.odt", "board_update.odt", "grant_proposal.odt", "client_brief.odt",
                      "press_release.odt", "team_newsletter.odt"),
        (("open", 0), ("type", "Status update: the migration is on track and the remaining work is scheduled "
                               "for next sprint."),
         ("hotkey", ("ctrl", "shift", "s")), ("type", "{d}"), ("press", ("enter",)), ("open", 1)),
        ("Styles", "Navigator", "Gallery", "Properties", "Page"),
        reform="file_stem",
    ),
    TaskTemplate(
        "Productivity", "Spreadsheets", "PRODUCTIVITY", ("LibreOffice Calc", "Thunderbird"),
        "budget.ods",
        "In budget.ods, set the marketing budget for the third quarter to {d} euros and send the updated "
        "sheet to the finance lead.",
        "amount", ("12,500", "18,750", "21,000", "9,800", "14,200", "16,400"),
        (("open", 0), ("hotkey", ("ctrl", "g")), ("type", "{d}"), ("press", ("enter",)),
         ("hotkey", ("ctrl", "s")), ("open", 1), ("type", "Updated marketing budget: {d} euros for the third "
                                                          "quarter, sheet attached for your review.")),
        ("Sheet: Budget", "Sheet: Actuals", "Column: team", "Column: quarter", "Column: amount"),
        reform="european_number",
    ),
    # --- Development ----------------------------------------------------------------------
    TaskTemplate(
        "Development", "Version control", "DEVELOPMENT", ("Terminal", "Visual Studio Code", "Firefox"),
        "webapp",
        "In the webapp repository, create a branch named {d}, commit the staged changes and push the "
        "branch.",
        "branch", ("feature/login-form", "fix/date-parsing", "feature/dark-mode", "chore/update-deps",
                   "fix/null-pointer", "feature/csv-export"),
        (("open", 1), ("open", 0), ("type", "git checkout -b {d}"), ("press", ("enter",)),
         ("type", "git commit -m 'Work for {d}: staged changes reviewed and tested locally before pushing'"),
         ("type", "git push -u origin {d}"), ("press", ("enter",))),
        ("src/", "tests/", "package.json", "README.md", ".gitignore"),
    ),
    TaskTemplate(
        "Development", "Configuration", "DEVELOPMENT", ("Visual Studio Code", "Terminal"),
        "config.yaml",
        "In Visual Studio Code, set the server port in config.yaml to {d} and restart the dev server "
        "from the terminal.",
        "port", ("8081", "5173", "3000", "9090", "8443", "4200"),
        (("open", 0), ("hotkey", ("ctrl", "p")), ("type", "config.yaml"), ("type", "port: {d}"),
         ("hotkey", ("ctrl", "s")), ("open", 1), ("type", "npm run dev"), ("press", ("enter",))),
        ("config.yaml", "server.js", "routes/", "public/", "package.json"),
    ),
    TaskTemplate(
        "Development", "Refactoring", "DEVELOPMENT", ("PyCharm", "Terminal"),
        "pipeline.py",
        "In PyCharm, rename the function load_data to {d} across the project and run the tests.",
        "identifier", ("read_records", "fetch_rows", "parse_input", "import_table", "collect_samples",
                       "gather_events"),
        (("open", 0), ("hotkey", ("shift", "f6")), ("type", "{d}"), ("press", ("enter",)), ("open", 1),
         ("type", "pytest -q tests/"), ("press", ("enter",))),
        ("pipeline.py", "io.py", "tests/", "setup.cfg", "requirements.txt"),
    ),
    TaskTemplate(
        "Development", "Environments", "DEVELOPMENT", ("Terminal",),
        "bash",
        "In the terminal, create a Python virtual environment named {d} in the home folder and install "
        "requests into it.",
        "environment name", ("venv-analytics", "env-scraper", "venv-reports", "env-backend", "venv-ml",
                             "env-notebooks"),
        (("open", 0), ("type", "python3 -m venv ~/{d}"), ("press", ("enter",)),
         ("type", "source ~/{d}/bin/activate && pip install requests"), ("press", ("enter",))),
        ("bash", "python", "htop", "ssh", "logs"),
    ),
)

OS_APPLICATION_NAMES = {
    "Files": {"windows": "File Explorer", "macos": "Finder"},
    "Terminal": {"windows": "Windows Terminal"},
    "Settings": {"macos": "System Settings"},
}
"""Applications whose name depends on the operating system."""

SCREEN_RESOLUTIONS = {
    "linux": ((1920, 1080), (2560, 1440)),
    "windows": ((1920, 1080), (1366, 768), (2560, 1440)),
    "macos": ((1440, 900), (1728, 1117)),
}
