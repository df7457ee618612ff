import Foundation
import ShelflineCore
import ShelflineLibrary

/// `<workspace>/library.html`: the whole library on one self-contained page; nothing fetched but
/// the sources' covers, lazily, over a placeholder that stays when offline.
///
/// The books are data, not markup: a JSON array per book, from which the page's script builds
/// only the rows in view (20,000 books as `<tr>` rows took 7–9 s to open in headless Chromium).
/// Written in one streaming pass, so memory grows only by a date per book; its bytes depend only
/// on the library file.
public enum LibraryPage {
    public static func path(in workspace: Workspace) -> String { workspace.root + "/library.html" }

    /// The rows the script builds at a time.
    static let pageRows = 100

    /// The positions of a book's values in its JSON array (the script reads them by these numbers).
    enum Column: Int, CaseIterable {
        case id, title, series, author
        /// Indices in the page's shelf names.
        case state, shelves
        case rating, added, finished, finishes, pages
        /// A number of the page's `covers`, a whole URL, or an ISBN their `byISBN` is asked for.
        case cover
    }

    /// Writes the page (empty when there is no library yet); returns its path.
    @discardableResult
    public static func write(workspace: Workspace) throws -> String {
        let target = path(in: workspace)
        let library = workspace.libraryFile
        let file = try AtomicFile(path: target)
        try file.write(documentStart)
        var stats = LibraryStats()
        var names = ShelfNames()
        // For the first order: a date is a small string stored inline, 16 bytes a book.
        var added: [String] = []
        var data: [UInt8] = [UInt8(ascii: "[")]
        if FileManager.default.fileExists(atPath: library) {
            // Decoded on a thread of their own while this one writes: each is about half the work.
            let books = Prefetcher<[LibraryBook]>(depth: 2) { emit in
                var batch: [LibraryBook] = []
                try LibraryBooks.forEach(path: library, fields: LibraryStats.fields.union(rowFields)) { book, _ in
                    batch.append(book)
                    if batch.count == batchSize {
                        try emit(batch)
                        batch = []
                    }
                }
                if !batch.isEmpty { try emit(batch) }
            }
            defer { books.stop() }
            while let batch = try books.next() {
                for book in batch {
                    stats.add(book)
                    if !added.isEmpty { data.append(UInt8(ascii: ",")) }
                    added.append(book.dateAdded ?? "")
                    appendData(book, names: &names, to: &data)
                }
                if data.count > 1 << 16 {
                    try file.write(data)
                    data.removeAll(keepingCapacity: true)
                }
            }
        }
        data += Array("]</script>\n".utf8)
        try file.write(data)
        try file.write(head(stats, names: names) + firstOrder(added) + tail)
        try file.commit()
        return target
    }

    /// Few enough that the batches in flight stay well under a megabyte.
    static let batchSize = 256

    /// The members the page reads besides `id`, `title` and the counts'.
    static let rowFields: Set<String> = [
        "dateAdded", "reads", "rating", "shelf", "shelves", "series", "seriesPosition",
        "author", "coverId", "coverURL", "enrichmentSource", "isbn13", "isbn10", "pages",
    ]

    /// The shelf names the books' data refers to by index, in the order first met.
    struct ShelfNames {
        var names: [String] = []
        var index: [String: Int] = [:]
        /// Per name, the last book that listed it: a repeated shelf is found without a set of names
        /// per book (hashing them measured slower).
        private var listedBy: [Int] = []
        private var book = 0

        mutating func callAsFunction(_ name: String) -> Int {
            if let known = index[name] { return known }
            names.append(name)
            listedBy.append(0)
            index[name] = names.count - 1
            return names.count - 1
        }

        /// `LibraryStats.otherShelves`' indices, comma-separated.
        mutating func appendOtherShelves(of book: LibraryBook, to out: inout [UInt8]) {
            guard let list = book.shelves else { return }
            self.book += 1
            var first = true
            for shelf in list where shelf != book.shelf {
                let index = self(shelf)
                guard listedBy[index] != self.book else { continue }
                listedBy[index] = self.book
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: String(index).utf8)
            }
        }
    }

    /// The covers the page's script makes URLs of.
    static let covers = SourceShapes.all.first?.covers

    /// Sets a row's cover URL from `b[COVER]`: the templates as JavaScript, so the page's script
    /// holds no source's URLs.
    static func coverScript(_ covers: CoverURLTemplate?) -> String {
        func concat(_ template: String, _ hole: String, _ value: String) -> String {
            let parts = template.components(separatedBy: hole).map { "'" + jsEscape($0) + "'" }
            return parts.joined(separator: " + \(value) + ")
        }
        guard let covers else { return "      cover.dataset.cover = b[COVER];" }
        let byISBN = covers.byISBN.map { concat($0, "{isbn}", "encodeURIComponent(b[COVER])") } ?? "b[COVER]"
        return "      cover.dataset.cover = typeof b[COVER] === 'number'\n"
            + "        ? \(concat(covers.byId, "{id}", "b[COVER]"))\n"
            + "        : b[COVER].indexOf('https://') === 0 ? b[COVER]\n"
            + "        : \(byISBN);"
    }

    /// For a single-quoted JavaScript string.
    static func jsEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    /// Every `<` is written `\u003c`, so no value can end the `<script>` element that holds the
    /// data or open a comment in it.
    static func appendData(
        _ book: LibraryBook, names: inout ShelfNames, to out: inout [UInt8], covers: CoverURLTemplate? = covers
    ) {
        let start = out.count
        let finishes = LibraryStats.finishes(book)
        let series = book.series.map { series in book.seriesPosition.map { "\(series) #\($0)" } ?? series } ?? ""
        func string(_ text: String) {
            JSONString.append(text, to: &out)
            out.append(UInt8(ascii: ","))
        }
        func raw(_ text: String) { out.append(contentsOf: text.utf8) }
        func number(_ value: Int) {
            raw(String(value))
            out.append(UInt8(ascii: ","))
        }
        out.append(UInt8(ascii: "["))
        string(book.id)
        string(book.title)
        string(series)
        string(book.author ?? "")
        number(names(LibraryStats.readingState(book)))
        out.append(UInt8(ascii: "["))
        names.appendOtherShelves(of: book, to: &out)
        raw("],")
        if let rating = book.rating {
            raw(rating == rating.rounded() ? String(Int(rating)) : String(rating))
        } else {
            raw("0")
        }
        out.append(UInt8(ascii: ","))
        string(book.dateAdded ?? "")
        string(finishes.max() ?? "")
        number(finishes.count)
        if let pages = book.pages { number(pages) } else { raw("null,") }
        if let url = book.coverURL {
            JSONString.append(url, to: &out)
        } else if let id = book.coverId, let own = SourceShapes.of(book.enrichmentSource)?.covers {
            // The script makes the URL of its own covers' numbers; another source's is written out.
            if own == covers { raw(String(id)) } else { JSONString.append(own.url(id: id), to: &out) }
        } else if covers?.byISBN != nil,
            let isbn = book.isbn13.flatMap({ ISBN.isValid13($0) ? $0 : nil })
                ?? book.isbn10.flatMap({ ISBN.isValid10($0) ? $0 : nil })
        {
            // Only an ISBN names a cover: any other text would be an image request for nothing.
            JSONString.append(isbn, to: &out)
        } else {
            raw("null")
        }
        out.append(UInt8(ascii: "]"))
        let hasLessThan = out.withUnsafeBufferPointer { memchr($0.baseAddress! + start, 0x3C, $0.count - start) != nil }
        if hasLessThan {
            let escaped = out[start...].flatMap { $0 == UInt8(ascii: "<") ? Array("\\u003c".utf8) : [$0] }
            out.replaceSubrange(start..., with: escaped)
        }
    }

    /// "Newest added", then file order: sorted here, so the script does not sort every book as the
    /// page opens.
    static func firstOrder(_ added: [String]) -> String {
        let order: [Int]
        let keys = added.map(sortKey)
        if !keys.contains(where: { $0 == nil }) {
            let keys = keys.map { $0! }
            order = added.indices.sorted { a, b in keys[a] == keys[b] ? a < b : keys[b] < keys[a] }
        } else {
            order = added.indices.sorted { a, b in
                added[a] == added[b] ? a < b : added[b].utf8.lexicographicallyPrecedes(added[a].utf8)
            }
        }
        return "<script type=\"application/json\" id=\"library-order\">["
            + order.map(String.init).joined(separator: ",") + "]</script>\n"
    }

    /// Two big-endian words that compare as the bytes of text up to 16 bytes without a NUL do (as
    /// strings, sorting measured slower). Nil for other text.
    static func sortKey(_ text: String) -> (UInt64, UInt64)? {
        var words: (UInt64, UInt64) = (0, 0)
        for (position, byte) in text.utf8.enumerated() {
            guard byte != 0, position < 16 else { return nil }
            let shifted = UInt64(byte) << (56 - 8 * UInt64(position % 8))
            if position < 8 { words.0 |= shifted } else { words.1 |= shifted }
        }
        return words
    }

    /// The data comes first, in `<head>`: the counts written after it are known only at the end.
    static let documentStart = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <script type="application/json" id="library-books">
        """

    /// From the end of the books' data to the table's empty body.
    static func head(_ stats: LibraryStats, names: ShelfNames) -> String {
        let finished = stats.finishedPerYear.values.reduce(0, +)
        let pagesRead = stats.pagesPerYear.values.reduce(0, +)
        var html = """
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
            td.date { white-space: nowrap; }
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
        html += shelfList(id: "exclusive-shelves", label: "Reading state", stats.exclusiveShelves, names: names)
        html += shelfList(id: "shelves", label: "Shelves", stats.shelves, names: names)
        html += "<h2>Finished per year</h2>\n"
        html += chart(id: "per-year", counts: stats.finishedPerYear, pages: stats.pagesPerYear)
        html += "<h2>Finished per month</h2>\n"
        html += chart(id: "per-month", counts: stats.finishedPerMonth, pages: stats.pagesPerMonth)
        html += """
            <h2>Books (<span id="shown">\(stats.books)</span>)</h2>
            <div class="controls">
            <input id="search" type="search" placeholder="Search title, author, series, shelf" aria-label="Search">
            <select id="sort" aria-label="Sort">
            <option value="added-desc">Newest added</option><option value="added-asc">Oldest added</option>
            <option value="finished-desc">Last finished</option><option value="title-asc">Title</option>
            <option value="author-asc">Author</option><option value="rating-desc">Rating</option>
            </select>
            </div>
            <div class="scroll"><table id="books" data-page="\(pageRows)">
            <thead><tr><th></th><th>Book</th><th>Shelf</th><th>Rating</th><th>Added</th><th>Finished</th><th>Pages</th></tr></thead>
            <tbody></tbody></table></div>
            <p><button type="button" id="more" hidden>Show more</button></p>
            <script type="application/json" id="library-shelves">
            """
        var json: [UInt8] = [UInt8(ascii: "[")]
        for (index, name) in names.names.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            JSONString.append(name, to: &json)
        }
        html += String(decoding: json, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c") + "]</script>\n"
        return html
    }

    /// A button filters the table to the books whose data names its `data-index` in this list's column.
    static func shelfList(id: String, label: String, _ counts: [String: Int], names: ShelfNames) -> String {
        guard !counts.isEmpty else { return "" }
        var html = "<ul class=\"shelves\" id=\"\(id)\"><li class=\"label\">\(label)</li>\n"
        for (shelf, count) in counts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            html +=
                "<li><button type=\"button\" data-index=\"\(names.index[shelf] ?? -1)\" data-shelf=\"\(escape(shelf))\" "
                + "data-count=\"\(count)\">\(escape(shelf))<span class=\"count\">\(count)</span></button></li>\n"
        }
        return html + "</ul>\n"
    }

    static func chart(id: String, counts: [String: Int], pages: [String: Int]) -> String {
        let periods = counts.keys.sorted()
        guard !periods.isEmpty else { return "<p class=\"muted\" id=\"\(id)\">No finished readings yet.</p>\n" }
        // Month labels need ~46 px; past 18 bars a month is labelled by its number alone.
        let monthly = periods.first?.count == 7
        let barWidth = monthly ? (periods.count <= 18 ? 46 : 18) : 34, gap = 4, height = 140, top = 18
        let width = max(200, periods.count * (barWidth + gap) + 10)
        let largest = max(1, counts.values.max() ?? 1)
        var svg =
            "<div class=\"scroll\"><svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" "
            + "height=\"\(height + top + 40)\" role=\"img\" aria-label=\"Readings finished per period\">\n"
        for (index, period) in periods.enumerated() {
            let count = counts[period] ?? 0
            let length = max(2, count * height / largest)
            let x = 5 + index * (barWidth + gap)
            let label = monthly && barWidth < 46 ? String(period.suffix(2)) : period
            // A month labelled by its number alone has its year under it where the year changes.
            let year = String(period.prefix(4))
            let yearLabel =
                label.count == 2 && (index == 0 || !periods[index - 1].hasPrefix(year))
                ? "<text class=\"year\" x=\"\(x)\" y=\"\(top + height + 28)\">\(escape(year))</text>" : ""
            svg +=
                "<g class=\"bar\" data-period=\"\(period)\" data-books=\"\(count)\" data-pages=\"\(pages[period] ?? 0)\">"
                + "<title>\(period): \(count) finished, \(pages[period] ?? 0) pages</title>"
                + "<rect x=\"\(x)\" y=\"\(top + height - length)\" width=\"\(barWidth)\" height=\"\(length)\" rx=\"2\" fill=\"#4285f4\"/>"
                + "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height - length - 4)\" text-anchor=\"middle\">\(count)</text>"
                + "<text x=\"\(x + barWidth / 2)\" y=\"\(top + height + 14)\" text-anchor=\"middle\">\(escape(label))</text>"
                + yearLabel + "</g>\n"
        }
        return svg + "</svg></div>\n"
    }

    /// Values go into the DOM as text (`textContent`), never as markup.
    static let tail = """
        <script>
        (function () {
          // The data, read once; its elements then leave the DOM (at 200,000 books, 22 MB of text).
          function json(id) {
            var element = document.getElementById(id), value = JSON.parse(element.textContent);
            element.remove();
            return value;
          }
          // Columns of a book's array (LibraryPage.Column).
          var ID = 0, TITLE = 1, SERIES = 2, AUTHOR = 3, STATE = 4, SHELVES = 5, RATING = 6, ADDED = 7, FINISHED = 8,
              FINISHES = 9, PAGES = 10, COVER = 11;
          var books = json('library-books'), names = json('library-shelves'), first = json('library-order');
          var table = document.getElementById('books'), body = table.tBodies[0], pageRows = +table.dataset.page || 100;
          var search = document.getElementById('search'), sort = document.getElementById('sort');
          var shown = document.getElementById('shown'), more = document.getElementById('more');
          // `rank`: each book's place in the first order (ties in any sort keep it); `orders`: the
          // sorts computed so far; `texts`: what search matches, built on the first search.
          var rank = new Int32Array(books.length), orders = { 'added-desc': first }, texts = null, filter = null;
          first.forEach(function (book, i) { rank[book] = i; });
          var visible = first, built = 0;
          function text(b) {
            var parts = [b[TITLE], b[SERIES] ? '(' + b[SERIES] + ')' : '', b[AUTHOR], names[b[STATE]]];
            b[SHELVES].forEach(function (i) { parts.push(names[i]); });
            return parts.join(' ').toLowerCase();
          }
          function key(name) {
            if (name === 'rating') return function (b) { return b[RATING]; };
            if (name === 'title') return function (b) { return b[TITLE].toLowerCase(); };
            if (name === 'author') return function (b) { return b[AUTHOR].toLowerCase(); };
            var column = name === 'added' ? ADDED : FINISHED;
            return function (b) { return b[column]; };
          }
          function order() {
            var value = sort.value;
            if (!orders[value]) {
              var parts = value.split('-'), sign = parts[1] === 'desc' ? -1 : 1, keyOf = key(parts[0]);
              var keys = books.map(keyOf);
              orders[value] = first.slice().sort(function (a, b) {
                return keys[a] < keys[b] ? -sign : keys[a] > keys[b] ? sign : rank[a] - rank[b];
              });
            }
            return orders[value];
          }
          function onShelf(b) {
            return filter.list === 'exclusive-shelves' ? b[STATE] === filter.index : b[SHELVES].indexOf(filter.index) >= 0;
          }
          function apply() {
            var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
            if (words.length && !texts) texts = books.map(text);
            visible = order().filter(function (i) {
              if (filter && !onShelf(books[i])) return false;
              for (var w = 0; w < words.length; w++) if (texts[i].indexOf(words[w]) < 0) return false;
              return true;
            });
            shown.textContent = visible.length;
            body.textContent = '';
            built = 0;
            if (covers) covers.disconnect();
            build();
          }
          function cell(row, className, value) {
            var td = row.insertCell();
            if (className) td.className = className;
            if (value !== undefined) td.textContent = value;
            return td;
          }
          function span(parent, className, value) {
            var s = document.createElement('span');
            s.className = className;
            s.textContent = value;
            parent.appendChild(s);
            return s;
          }
          function row(b) {
            var tr = document.createElement('tr');
            tr.dataset.id = b[ID];
            var cover = cell(tr, 'cover'), ph = document.createElement('div');
            ph.className = 'ph';
            ph.textContent = b[TITLE].split(' ').filter(Boolean).slice(0, 2).map(function (w) {
              return Array.from(w)[0].toUpperCase();
            }).join('');
            cover.appendChild(ph);
            if (b[COVER] !== null) {
        \(coverScript(covers))
            }
            var book = cell(tr);
            span(book, 'title', b[TITLE]);
            if (b[SERIES]) { book.appendChild(document.createTextNode(' ')); span(book, 'series', '(' + b[SERIES] + ')'); }
            if (b[AUTHOR]) { book.appendChild(document.createElement('br')); span(book, 'author', b[AUTHOR]); }
            cell(tr, '', names[b[STATE]]);
            var rating = cell(tr);
            if (b[RATING] > 0) {
              var whole = Math.floor(b[RATING]);
              span(rating, 'stars', '★★★★★'.slice(0, whole) + '☆☆☆☆☆'.slice(0, Math.max(0, 5 - whole))).title = b[RATING];
              rating.appendChild(document.createTextNode(' ' + b[RATING]));
            }
            cell(tr, 'date', b[ADDED]);
            var finished = cell(tr, 'date', b[FINISHED]);
            if (b[FINISHES] > 1) { finished.appendChild(document.createTextNode(' ')); span(finished, 'muted', '(×' + b[FINISHES] + ')'); }
            cell(tr, 'num', b[PAGES] === null ? '' : b[PAGES]);
            return tr;
          }
          // The next page of rows; "Show more" stays while books are left.
          function build() {
            var end = Math.min(visible.length, built + pageRows), fragment = document.createDocumentFragment();
            for (; built < end; built++) fragment.appendChild(row(books[visible[built]]));
            body.appendChild(fragment);
            more.hidden = built >= visible.length;
            more.textContent = 'Show more (' + (visible.length - built) + ' left)';
            if (covers) body.querySelectorAll('td.cover[data-cover]:not(.seen)').forEach(function (c) { covers.observe(c); });
            else body.querySelectorAll('td.cover[data-cover]:not(.seen)').forEach(cover);
            if (nearEnd) { nearEnd.unobserve(more); if (!more.hidden) nearEnd.observe(more); }
          }
          // Covers: fetched as their rows near the viewport; a failed one leaves the placeholder.
          function cover(cell) {
            cell.classList.add('seen');
            var img = new Image();
            img.alt = '';
            img.onerror = function () { img.remove(); };
            img.src = cell.dataset.cover;
            cell.appendChild(img);
          }
          var covers = null, nearEnd = null;
          if ('IntersectionObserver' in window) {
            covers = new IntersectionObserver(function (entries) {
              entries.forEach(function (entry) {
                if (entry.isIntersecting) { covers.unobserve(entry.target); cover(entry.target); }
              });
            }, { rootMargin: '800px' });
            nearEnd = new IntersectionObserver(function (entries) {
              if (entries.some(function (entry) { return entry.isIntersecting; })) build();
            }, { rootMargin: '800px' });
          }
          more.addEventListener('click', build);
          search.addEventListener('input', apply);
          sort.addEventListener('change', apply);
          document.querySelectorAll('.shelves button').forEach(function (button) {
            var list = button.closest('ul').id, index = +button.dataset.index;
            button.addEventListener('click', function () {
              var on = !(filter && filter.list === list && filter.index === index);
              document.querySelectorAll('.shelves button').forEach(function (b) { b.classList.remove('on'); });
              filter = on ? { list: list, index: index } : null;
              if (on) button.classList.add('on');
              apply();
            });
          });
          build();
        })();
        </script>
        </body>
        </html>

        """

    static func escape(_ text: String) -> String { ImportReportPage.escape(text) }
}
