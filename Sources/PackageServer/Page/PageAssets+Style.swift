extension PageAssets {
  /// The style sheet.
  static let style = #"""
    :root { --fg: #1d1f21; --muted: #6a6f75; --line: #d8dbe0; --accent: #2f6feb; --added: #e6ffec; --deleted: #ffebe9; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); }
    header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); }
    header h1 { font-size: 16px; margin: 0; }
    .badge { border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; font-size: 12px; }
    .muted { color: var(--muted); }
    .button, button { border: 1px solid var(--line); border-radius: 4px; background: #f6f8fa; padding: 2px 10px;
      color: var(--fg); text-decoration: none; cursor: pointer; font: inherit; }
    #notice { background: #fff8c5; padding: 6px 16px; border-bottom: 1px solid var(--line); }
    main { display: flex; height: calc(100vh - 45px); }
    #tree-pane { width: 40%; min-width: 280px; overflow: auto; border-right: 1px solid var(--line); padding: 8px; }
    #view-pane { flex: 1; overflow: auto; padding: 8px 16px; }
    /* Narrow windows and 200% zoom: the tree above the view, tables that wrap. */
    @media (max-width: 800px) {
      header { flex-wrap: wrap; gap: 6px 12px; }
      main { flex-direction: column; height: auto; }
      #tree-pane { width: auto; min-width: 0; max-height: 45vh; border-right: none; border-bottom: 1px solid var(--line); }
      #view-pane { overflow: visible; padding: 8px; }
      #versions table, #versions tbody, #versions tr, #versions td { display: block; }
      #versions thead { display: none; }
      #versions tr { border-bottom: 1px solid var(--line); padding: 4px 0; }
      #versions td { padding: 1px 0; text-align: left; border: none; }
      #versions td:first-child { font-weight: bold; }
      #versions td:first-child::before { content: "Version "; }
    }
    .controls { display: flex; gap: 8px; margin-bottom: 8px; align-items: center; }
    .controls input { flex: 1; }
    ul.tree { list-style: none; margin: 0; padding-left: 14px; }
    #tree { padding-left: 0; }
    .row { display: flex; gap: 8px; padding: 1px 4px; cursor: pointer; white-space: nowrap; border-radius: 3px; }
    .row:hover { background: #f0f3f6; }
    .row.selected { background: #dbe7fd; }
    .row:focus { outline: 2px solid var(--accent); outline-offset: -2px; }
    .row .name { flex: 1; overflow: hidden; text-overflow: ellipsis; }
    .row .size, .row .mode { color: var(--muted); font-variant-numeric: tabular-nums; }
    .row .twisty { width: 12px; display: inline-block; color: var(--muted); }
    .more { margin: 2px 0 2px 20px; }
    nav#tabs { display: flex; gap: 4px; margin-bottom: 8px; }
    nav#tabs button.active { background: var(--accent); color: white; border-color: var(--accent); }
    pre { margin: 0; font: 12px/1.45 ui-monospace, monospace; }
    pre.code .line { display: block; white-space: pre-wrap; overflow-wrap: anywhere; }
    pre.code .line::before { content: attr(data-n); display: inline-block; width: 5em; margin-right: 1em;
      color: var(--muted); text-align: right; user-select: none; }
    pre.hex { white-space: pre; overflow-x: auto; }
    /* A long line or name wraps within the preview: the page never scrolls sideways (200% zoom). */
    #view-pane { min-width: 0; }
    .preview-head { margin-bottom: 8px; overflow-wrap: anywhere; }
    img.preview { max-width: 100%; max-height: 70vh; border: 1px solid var(--line);
      background: repeating-conic-gradient(#eee 0% 25%, white 0% 50%) 50% / 16px 16px; }
    svg.treemap { width: 100%; height: 60vh; border: 1px solid var(--line); }
    svg.treemap rect { stroke: white; stroke-width: 1; cursor: pointer; }
    svg.treemap rect.directory { fill: #7aa6f0; }
    svg.treemap rect.file { fill: #b8c7dc; }
    svg.treemap rect.symlink { fill: #e5c07b; }
    svg.treemap text { font-size: 11px; pointer-events: none; fill: #10213f; }
    table { border-collapse: collapse; }
    td, th { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; }
    td.number { text-align: right; font-variant-numeric: tabular-nums; }
    .change { margin: 8px 0; border: 1px solid var(--line); border-radius: 4px; }
    .change-head { padding: 4px 8px; background: #f6f8fa; }
    .status { font-weight: bold; display: inline-block; width: 1.5em; }
    .patch .ins { background: var(--added); display: block; }
    .patch .del { background: var(--deleted); display: block; }
    .patch .ctx { display: block; }
    .patch .hunk { color: var(--muted); display: block; }
    table.split { width: 100%; border-collapse: collapse; table-layout: fixed; font: 12px/1.4 ui-monospace, monospace; }
    table.split td { padding: 0 4px; white-space: pre-wrap; overflow-wrap: anywhere; vertical-align: top; border: none; }
    table.split col.n { width: 3.5em; }
    table.split td.n { color: var(--muted); text-align: right; user-select: none; }
    table.split tr.split-hunk td { color: var(--muted); background: #f6f8fa; }
    table.split td.old.change { background: var(--deleted); }
    table.split td.new.change { background: var(--added); }
    table.split td.empty { background: #f6f8fa; }
    table.split mark { background: #ffd7a8; color: inherit; border-radius: 2px; }
    .side-by-side { display: flex; gap: 8px; padding: 8px; }
    .side-by-side figure { margin: 0; flex: 1; }
    .side-by-side img { max-width: 100%; }
    .history { border: 1px solid var(--line); padding: 8px; margin: 8px 0; }
    .history h3 { display: inline; font-size: 1em; margin-right: 8px; }
    .history .step { margin-top: 8px; }
    td.changes .paths { font-size: 0.85em; overflow-wrap: anywhere; }
    .confirm { background: #fff8c5; padding: 8px; margin: 8px 0; border: 1px solid var(--line); }
    .error { color: #b3261e; }
    """#
}
