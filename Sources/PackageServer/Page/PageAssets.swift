/// The page `docpkg serve` serves, written here and compiled into the binary: one HTML document, one style sheet,
/// one script (``script``), no library, nothing inline (the policy allows scripts from the server only). The
/// HTML carries the URL's token (for the assets' URLs) and the page's CSRF token in a `<meta>` element; both are
/// hex digits, so nothing needs escaping.
enum PageAssets {
  /// The page for `token` (the URL's) and `pageToken` (this page's CSRF token).
  static func html(token: String, pageToken: String) -> String {
    #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="docpkg-csrf" content="\#(pageToken)">
    <title>docpkg serve</title>
    <link rel="stylesheet" href="/app.css?token=\#(token)">
    <script src="/app.js?token=\#(token)" defer></script>
    </head>
    <body>
    <header>
      <h1 id="title">docpkg serve</h1>
      <span id="kind" class="badge"></span>
      <span id="totals" class="muted"></span>
      <a id="download" class="button" download>Download zip</a>
      <span id="live" class="muted"></span>
    </header>
    <div id="notice" hidden><span id="restore-note"></span> <span id="change-note"></span></div>
    <main>
      <section id="tree-pane" aria-label="Files">
        <div class="controls">
          <input id="filter" type="search" placeholder="Filter names" aria-label="Filter names">
          <select id="sort" aria-label="Sort">
            <option value="name">Name</option>
            <option value="size">Size</option>
          </select>
        </div>
        <ul id="tree" class="tree" role="tree"></ul>
      </section>
      <section id="view-pane">
        <nav id="tabs">
          <button type="button" data-tab="preview" class="active">Preview</button>
          <button type="button" data-tab="sizemap">Size map</button>
          <button type="button" data-tab="versions">Versions</button>
          <button type="button" data-tab="diff">Compare</button>
        </nav>
        <div id="preview" class="tab"><p class="muted">Choose a file.</p></div>
        <div id="sizemap" class="tab" hidden></div>
        <div id="versions" class="tab" hidden></div>
        <div id="diff" class="tab" hidden>
          <div class="controls">
            <label>From <select id="diff-from"></select></label>
            <label>to <select id="diff-to"></select></label>
            <button type="button" id="diff-run">Compare</button>
            <label><input type="checkbox" id="side-by-side"> Side by side</label>
          </div>
          <div id="diff-result"></div>
        </div>
      </section>
    </main>
    </body>
    </html>

    """#
  }
}
