import Foundation
import ShelflineCore
import ShelflineLibrary

/// `<workspace>/library.html`: the whole library on one self-contained page (inline CSS, SVG and a
/// small inline script; nothing fetched but Open Library covers, lazily, over a placeholder that
/// stays when offline). Shelves with counts, books finished per year and per month (with pages),
/// and every book with its cover, rating, dates and series, sortable and searchable.
///
/// Written in two streaming passes over the library (the counts, then the rows), so memory does not
/// grow with the library; its bytes depend only on the library file.
public enum LibraryPage {
    /// The page's path in `workspace`.
    public static func path(in workspace: Workspace) -> String { workspace.root + "/library.html" }

    /// The most books the page lists (the most recently added; the counts and charts cover the whole
    /// library). A 187,000-book page was 87 MB and took 5.6 s to write: more than a browser shows
    /// usefully, and render runs after every import. `shelfline library list` prints them all.
    public static let maximumRows = 20_000

    /// Renders and atomically writes the page of `workspace`'s library (an empty page when there is
    /// no library yet); returns its path.
    @discardableResult
    public static func write(workspace: Workspace, maximumRows: Int = maximumRows) throws -> String {
        let target = path(in: workspace)
        let library = workspace.libraryFile
        let exists = FileManager.default.fileExists(atPath: library)
        var stats = LibraryStats()
        // One pass: the counts, and the books listed so far (the `maximumRows` latest by
        // `listingKey`, kept as a heap). Reading the library again for the rows was a second
        // inflate and scan of the whole file, 40 % of render's time (perf, 200k books); keeping
        // every book's key for the cut was 190,000 strings.
        var listed = ListedBooks(capacity: maximumRows)
        if exists {
            try LibraryBooks.forEach(path: library, fields: LibraryStats.fields.union(rowFields)) { book, _ in
                stats.add(book)
                listed.offer(book)
            }
        }
        let file = try AtomicFile(path: target)
        let shelves = ShelfButtons(stats)
        try file.write(head(stats, shelves: shelves, listed: min(stats.books, maximumRows)))
        var rows = ""
        try listed.forEachInPageOrder { book in
            rows += row(book, shelves: shelves)
            if rows.utf8.count > 1 << 16 {
                try file.write(rows)
                rows = ""
            }
        }
        try file.write(rows + tail)
        try file.commit()
        return target
    }

    /// Orders books for the cap: date added, then id (unique).
    static func listingKey(_ book: LibraryBook) -> String { (book.dateAdded ?? "") + " " + book.id }

    /// The members of a library line the listing order and `row` read (besides `id` and `title`).
    static let rowFields: Set<String> = ["dateAdded", "reads", "rating", "shelf", "shelves", "series", "seriesPosition",
                                         "author", "coverId", "isbn13", "isbn10", "pages"]

    /// The books with the `capacity` greatest listing keys of those offered: a min-heap of keys
    /// over slots holding what `row` reads of each book (a whole `LibraryBook` per listed book, and
    /// moving books within the heap, doubled render's memory and cost more than the pass it saves).
    struct ListedBooks {
        let capacity: Int
        /// The heap: each position's key and slot.
        private var keys: [String] = []
        private var slots: [Int] = []
        /// By slot: the book's row fields and its index in the file.
        private var books: [ListedBook] = []
        private var indices: [Int] = []
        private var offered = 0

        init(capacity: Int) { self.capacity = capacity }

        /// The next book of the file.
        mutating func offer(_ book: LibraryBook) {
            defer { offered += 1 }
            guard capacity > 0 else { return }
            let key = listingKey(book)
            if keys.count < capacity {
                books.append(ListedBook(book))
                indices.append(offered)
                keys.append(key)
                slots.append(books.count - 1)
                var child = keys.count - 1
                while child > 0, keys[child] < keys[(child - 1) / 2] {
                    swap(child, (child - 1) / 2)
                    child = (child - 1) / 2
                }
            } else if key > keys[0] {
                books[slots[0]] = ListedBook(book)
                indices[slots[0]] = offered
                keys[0] = key
                var parent = 0
                while true {
                    var least = parent
                    let left = 2 * parent + 1, right = left + 1
                    if left < keys.count, keys[left] < keys[least] { least = left }
                    if right < keys.count, keys[right] < keys[least] { least = right }
                    guard least != parent else { break }
                    swap(parent, least)
                    parent = least
                }
            }
        }

        private mutating func swap(_ i: Int, _ j: Int) {
            keys.swapAt(i, j)
            slots.swapAt(i, j)
        }

        /// Calls `body` with the books kept in the page's first order, the script's "Newest added":
        /// date added, latest first, then the order they were offered. Written so, the script does
        /// not sort 20,000 rows as the page opens: moving them was half of its 10.5 s to
        /// DOMContentLoaded in headless Chromium (load ≈ 4).
        func forEachInPageOrder(_ body: (LibraryBook) throws -> Void) rethrows {
            let order = books.indices.sorted { a, b in
                let x = books[a].dateAdded ?? "", y = books[b].dateAdded ?? ""
                return x == y ? indices[a] < indices[b] : y.utf8.lexicographicallyPrecedes(x.utf8)
            }
            for slot in order { try body(books[slot].book) }
        }
    }

    /// The members of a listed book that `rowFields` name.
    struct ListedBook {
        var id, title: String
        var dateAdded, shelf, series, seriesPosition, author, isbn13, isbn10: String?
        var reads: [ReadSpan]?
        var shelves: [String]?
        var rating: Double?
        var coverId, pages: Int?

        init(_ book: LibraryBook) {
            (id, title, dateAdded, shelf, series, seriesPosition) = (book.id, book.title, book.dateAdded, book.shelf, book.series, book.seriesPosition)
            (author, isbn13, isbn10, reads, shelves) = (book.author, book.isbn13, book.isbn10, book.reads, book.shelves)
            (rating, coverId, pages) = (book.rating, book.coverId, book.pages)
        }

        var book: LibraryBook {
            var book = LibraryBook(id: id, title: title)
            (book.dateAdded, book.shelf, book.series, book.seriesPosition) = (dateAdded, shelf, series, seriesPosition)
            (book.author, book.isbn13, book.isbn10, book.reads, book.shelves) = (author, isbn13, isbn10, reads, shelves)
            (book.rating, book.coverId, book.pages) = (rating, coverId, pages)
            return book
        }
    }

    /// The shelf buttons, in the order shown (most books first): a row names its reading state and
    /// its other shelves by their buttons' indices, so a button shows exactly the books its count
    /// counts (`LibraryStats.readingState`, `otherShelves`). Names matched as text did not: a tag
    /// `science fiction` matched the `fiction` button, and a book without a state never matched `none`.
    struct ShelfButtons {
        var states: [(key: String, value: Int)]
        var others: [(key: String, value: Int)]
        var stateIndex: [String: Int] = [:], otherIndex: [String: Int] = [:]

        init(_ stats: LibraryStats) {
            states = stats.exclusiveShelves.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            others = stats.shelves.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            for (index, shelf) in states.enumerated() { stateIndex[shelf.key] = index }
            for (index, shelf) in others.enumerated() { otherIndex[shelf.key] = index }
        }
    }

    static func head(_ stats: LibraryStats, shelves: ShelfButtons, listed: Int) -> String {
        let finished = stats.finishedPerYear.values.reduce(0, +)
        let pagesRead = stats.pagesPerYear.values.reduce(0, +)
        var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Library: \(stats.books) books</title>
        <style>
        body { font: 15px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 72em;
               padding: 0 1em; color: #1d1d1f; background: #fff; }
        h1 { font-size: 1.6em; margin-bottom: .2em; }
        h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
        .summary { color: #555; }
        .shelves { display: flex; flex-wrap: wrap; gap: .4em; padding: 0; list-style: none; }
        .shelves button { font: inherit; border: 1px solid #ccd; background: #f6f6f9; border-radius: 1em; padding: .15em .8em; cursor: pointer; }
        .shelves button.on { background: #1d1d1f; color: #fff; }
        .shelves .count { color: #888; margin-left: .3em; }
        .shelves .label { color: #666; min-width: 7.5em; padding-top: .2em; }
        .shelves button.on .count { color: #ccc; }
        .controls { display: flex; gap: .6em; margin: .8em 0; }
        .controls input { flex: 1; font: inherit; padding: .3em .5em; }
        .controls select { font: inherit; }
        table { border-collapse: collapse; width: 100%; }
        th, td { border-bottom: 1px solid #eee; padding: .35em .5em; text-align: left; vertical-align: top; }
        th { background: #f3f3f5; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        .cover { position: relative; width: 42px; height: 62px; padding: 0; }
        .cover .ph { position: absolute; inset: 3px; border-radius: 3px; background: linear-gradient(135deg, #dfe3ea, #c3cad6);
                     color: #556; font: 600 13px/56px sans-serif; text-align: center; overflow: hidden; }
        .cover img { position: absolute; inset: 3px; width: 36px; height: 56px; object-fit: cover; border-radius: 3px; }
        .title { font-weight: 600; }
        .series, .author, .muted { color: #666; }
        .stars { color: #d08a00; letter-spacing: 1px; white-space: nowrap; }
        .scroll { overflow-x: auto; }
        svg text { font: 12px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: #1d1d1f; }
        </style>
        </head>
        <body>
        <h1>Library</h1>
        <p class="summary" id="summary">\(stats.books) books · \(finished) readings finished · \(pagesRead) pages read</p>
        <h2>Shelves</h2>

        """
        html += shelfList(id: "exclusive-shelves", label: "Reading state", shelves.states)
        html += shelfList(id: "shelves", label: "Shelves", shelves.others)
        html += "<h2>Finished per year</h2>\n"
        html += chart(id: "per-year", counts: stats.finishedPerYear, pages: stats.pagesPerYear)
        html += "<h2>Finished per month</h2>\n"
        html += chart(id: "per-month", counts: stats.finishedPerMonth, pages: stats.pagesPerMonth)
        html += """
        <h2>Books (<span id="shown">\(listed)</span>)</h2>
        \(listed < stats.books ? "<p class=\"muted\" id=\"capped\">The \(listed) most recently added of \(stats.books) books; <code>shelfline library list</code> prints them all.</p>" : "")
        <div class="controls">
        <input id="search" type="search" placeholder="Search title, author, series, shelf" aria-label="Search">
        <select id="sort" aria-label="Sort">
        <option value="added-desc">Newest added</option><option value="added-asc">Oldest added</option>
        <option value="finished-desc">Last finished</option><option value="title-asc">Title</option>
        <option value="author-asc">Author</option><option value="rating-desc">Rating</option>
        </select>
        </div>
        <div class="scroll"><table id="books">
        <thead><tr><th></th><th>Book</th><th>Shelf</th><th>Rating</th><th>Added</th><th>Finished</th><th>Pages</th></tr></thead>
        <tbody>

        """
        return html
    }

    /// A row of shelf buttons with their book counts; a button filters the table to its shelf (the
    /// rows whose `data-state` or `data-shelves` holds its `data-index`).
    static func shelfList(id: String, label: String, _ shelves: [(key: String, value: Int)]) -> String {
        guard !shelves.isEmpty else { return "" }
        var html = "<ul class=\"shelves\" id=\"\(id)\"><li class=\"label\">\(label)</li>\n"
        for (index, (shelf, count)) in shelves.enumerated() {
            html += "<li><button type=\"button\" data-index=\"\(index)\" data-shelf=\"\(escape(shelf))\" data-count=\"\(count)\">\(escape(shelf))"
                + "<span class=\"count\">\(count)</span></button></li>\n"
        }
        return html + "</ul>\n"
    }

    /// One `<tr>`: its `data-*` attributes carry what the script sorts and filters on; `data-state`
    /// and `data-shelves` are indices of `shelves`' buttons.
    static func row(_ book: LibraryBook, shelves: ShelfButtons) -> String {
        let finishes = LibraryStats.finishes(book)
        let last = finishes.max()
        let series = book.series.map { series in book.seriesPosition.map { "\(series) #\($0)" } ?? series }
        let state = shelves.stateIndex[LibraryStats.readingState(book)].map(String.init) ?? ""
        let others = LibraryStats.otherShelves(book).compactMap { shelves.otherIndex[$0].map(String.init) }.joined(separator: " ")
        // Title, author and series are searched and sorted from the cells' own text (the script reads
        // them once): attributes repeating them made a 20,000-book page 12 MB.
        var html = "<tr data-id=\"\(book.id)\" data-added=\"\(book.dateAdded ?? "")\" data-finished=\"\(last ?? "")\" "
            + "data-rating=\"\(book.rating.map { String($0) } ?? "0")\" data-state=\"\(state)\" data-shelves=\"\(others)\">"
        // The cover is fetched by the script once its row nears the viewport (IntersectionObserver):
        // 20,000 <img> elements, even lazy ones, were half the page's parse time.
        html += "<td class=\"cover\"\(coverURL(book).map { " data-cover=\"\($0)\"" } ?? "")><div class=\"ph\">\(escape(initials(book.title)))</div>"
        html += "</td><td><span class=\"title\">\(escape(book.title))</span>"
        if let series { html += " <span class=\"series\">(\(escape(series)))</span>" }
        if let author = book.author { html += "<br><span class=\"author\">\(escape(author))</span>" }
        html += "</td><td>\(escape(book.shelf ?? ""))</td><td>"
        if let rating = book.rating {
            let whole = Int(rating.rounded(.down))
            html += "<span class=\"stars\" title=\"\(rating)\">\(String(repeating: "★", count: whole))"
                + "\(String(repeating: "☆", count: max(0, 5 - whole)))</span> \(ExportCells.stars(rating) ?? "")"
        }
        html += "</td><td>\(book.dateAdded ?? "")</td><td>\(last ?? "")"
        if finishes.count > 1 { html += " <span class=\"muted\">(×\(finishes.count))</span>" }
        html += "</td><td class=\"num\">\(book.pages.map(String.init) ?? "")</td></tr>\n"
        return html
    }

    /// Open Library's cover by the cover id lookup found, else by ISBN (`default=false`: a 404,
    /// not a blank image, when it has none, so the placeholder stays).
    static func coverURL(_ book: LibraryBook) -> String? {
        if let id = book.coverId { return "https://covers.openlibrary.org/b/id/\(id)-M.jpg" }
        if let isbn = book.isbn13 ?? book.isbn10 { return "https://covers.openlibrary.org/b/isbn/\(isbn)-M.jpg?default=false" }
        return nil
    }

    static func initials(_ title: String) -> String {
        String(title.split(separator: " ").prefix(2).compactMap(\.first).map { Character($0.uppercased()) })
    }

    /// A bar per period (oldest first), its height the readings finished; `data-*` carry the counts.
    static func chart(id: String, counts: [String: Int], pages: [String: Int]) -> String {
        let periods = counts.keys.sorted()
        guard !periods.isEmpty else { return "<p class=\"muted\" id=\"\(id)\">No finished readings yet.</p>\n" }
        // Month labels (`2024-05`) need ~46 px; past 18 bars a month is labelled by its number alone.
        let monthly = periods.first?.count == 7
        let barWidth = monthly ? (periods.count <= 18 ? 46 : 18) : 34, gap = 4, height = 140, top = 18
        let width = max(200, periods.count * (barWidth + gap) + 10)
        let largest = max(1, counts.values.max() ?? 1)
        var svg = "<div class=\"scroll\"><svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" "
            + "height=\"\(height + top + 40)\" role=\"img\" aria-label=\"Readings finished per period\">\n"
        for (index, period) in periods.enumerated() {
            let count = counts[period] ?? 0
            let length = max(2, count * height / largest)
            let x = 5 + index * (barWidth + gap)
            let label = monthly && barWidth < 46 ? String(period.suffix(2)) : period
            svg += "<g class=\"bar\" data-period=\"\(period)\" data-books=\"\(count)\" data-pages=\"\(pages[period] ?? 0)\">"
                + "<title>\(period): \(count) finished, \(pages[period] ?? 0) pages</title>"
                + "<rect x=\"\(x)\" y=\"\(top + height - length)\" width=\"\(barWidth)\" height=\"\(length)\" rx=\"2\" fill=\"#4285f4\"/>"
                + "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height - length - 4)\" text-anchor=\"middle\">\(count)</text>"
                + "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" text-anchor=\"middle\">\(escape(label))</text></g>\n"
        }
        return svg + "</svg></div>\n"
    }

    static let tail = """
    </tbody></table></div>
    <script>
    (function () {
      // `all`: the rows in the order written, newest added first (ties in a sort stay in it).
      var body = document.querySelector('#books tbody'), all = Array.prototype.slice.call(body.rows), rows = all;
      var search = document.getElementById('search'), sort = document.getElementById('sort');
      var shown = document.getElementById('shown'), filter = null, texts = null;
      function names(id) {
        return Array.prototype.map.call(document.querySelectorAll('#' + id + ' button'), function (b) { return b.dataset.shelf; });
      }
      var states = names('exclusive-shelves'), others = names('shelves');
      function indices(row) { return row.dataset.shelves ? row.dataset.shelves.split(' ') : []; }
      function text(row) {
        var parts = Array.prototype.map.call(row.cells[1].querySelectorAll('span'), function (s) { return s.textContent; });
        if (row.dataset.state) parts.push(states[+row.dataset.state]);
        indices(row).forEach(function (i) { parts.push(others[+i]); });
        return parts.join(' ').toLowerCase();
      }
      function onShelf(row) {
        if (filter.list === 'exclusive-shelves') return row.dataset.state === filter.index;
        return indices(row).indexOf(filter.index) >= 0;
      }
      function apply() {
        if (!texts) texts = all.map(text);
        var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean), count = 0;
        all.forEach(function (row, i) {
          var ok = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
          if (ok && filter) ok = onShelf(row);
          row.hidden = !ok;
          if (ok) count++;
        });
        shown.textContent = count;
      }
      function key(row, name) {
        if (name === 'rating') return +row.dataset.rating;
        if (name === 'title') return row.querySelector('.title').textContent.toLowerCase();
        if (name === 'author') { var a = row.querySelector('.author'); return a ? a.textContent.toLowerCase() : ''; }
        return row.dataset[name];
      }
      function order() {
        var parts = sort.value.split('-'), name = parts[0], sign = parts[1] === 'desc' ? -1 : 1;
        var keyed = all.map(function (row, i) { return [key(row, name), i, row]; });
        keyed.sort(function (a, b) { return a[0] < b[0] ? -sign : a[0] > b[0] ? sign : a[1] - b[1]; });
        rows = keyed.map(function (k) { return k[2]; });
        var fragment = document.createDocumentFragment();
        rows.forEach(function (row) { fragment.appendChild(row); });
        body.appendChild(fragment);
      }
      search.addEventListener('input', apply);
      sort.addEventListener('change', function () { order(); apply(); });
      document.querySelectorAll('.shelves button').forEach(function (button) {
        var list = button.closest('ul').id;
        button.addEventListener('click', function () {
          var on = !(filter && filter.list === list && filter.index === button.dataset.index);
          document.querySelectorAll('.shelves button').forEach(function (b) { b.classList.remove('on'); });
          filter = on ? { list: list, index: button.dataset.index } : null;
          if (on) button.classList.add('on');
          apply();
        });
      });
      // Covers: fetched as their rows near the viewport; a failed one leaves the placeholder.
      function cover(cell) {
        var img = new Image();
        img.alt = '';
        img.onerror = function () { img.remove(); };
        img.src = cell.dataset.cover;
        cell.appendChild(img);
      }
      var cells = document.querySelectorAll('td.cover[data-cover]');
      if ('IntersectionObserver' in window) {
        var observer = new IntersectionObserver(function (entries) {
          entries.forEach(function (entry) {
            if (entry.isIntersecting) { observer.unobserve(entry.target); cover(entry.target); }
          });
        }, { rootMargin: '800px' });
        cells.forEach(function (cell) { observer.observe(cell); });
      } else {
        cells.forEach(cover);
      }
    })();
    </script>
    </body>
    </html>

    """

    static func escape(_ text: String) -> String { ImportReportPage.escape(text) }
}
