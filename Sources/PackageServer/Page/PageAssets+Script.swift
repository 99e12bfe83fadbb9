extension PageAssets {
  /// The page's script. Package text only ever reaches the document through `textContent` and attribute values
  /// (never `innerHTML`); images load through `/api/raw`, which sends only image types, sandboxed.
  static let script = #"""
    "use strict";
    const token = new URLSearchParams(location.search).get("token") || "";
    const csrf = document.querySelector('meta[name="docpkg-csrf"]').content;
    const state = { info: null, selected: null, expanded: new Set(), versions: [], mapPath: "", changes: 0 };

    // The page's one encoder of requests: every URL it asks for is made here. URLSearchParams writes the form
    // encoding (a space as "+", a "+" as "%2B", other bytes of the UTF-8 as %XX), which the server decodes once.
    function api(route, params) {
      const query = new URLSearchParams(Object.assign({ token }, params || {}));
      return route + "?" + query.toString();
    }
    async function getJSON(route, params) {
      const response = await fetch(api(route, params));
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || response.statusText);
      return body;
    }
    function el(tag, props, ...children) {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(props || {})) {
        if (key === "class") node.className = value;
        else if (key === "text") node.textContent = value;
        else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
        else if (key === "dataset") Object.assign(node.dataset, value);
        else node.setAttribute(key, value);
      }
      for (const child of children) if (child != null) node.append(child);
      return node;
    }
    function bytes(n) {
      if (n < 1024) return n + " B";
      const units = ["KiB", "MiB", "GiB", "TiB"];
      let value = n, unit = -1;
      do { value /= 1024; unit++; } while (value >= 1024 && unit < units.length - 1);
      return value.toFixed(value < 10 ? 1 : 0) + " " + units[unit];
    }
    function showError(container, error) {
      container.replaceChildren(el("p", { class: "error", text: String(error.message || error) }));
    }
    function comparedStates() { return (state.info && state.info.compared) || []; }
    function stateName(id) {
      if (id === "current") return "current";
      const other = comparedStates().find((c) => c.state === id);
      return other ? other.location : "version " + id;
    }

    // Tree: each directory lists its children when opened, a page at a time.
    const pageSize = 200;
    async function loadChildren(list, path, offset) {
      let listing;
      try {
        listing = await getJSON("/api/children", {
          path, offset: offset || 0, limit: pageSize,
          sort: document.getElementById("sort").value, filter: document.getElementById("filter").value });
      } catch (error) {
        // Shown where the entries would be (two names one in NFC and NFD, a folder gone): never a blank tree.
        list.replaceChildren(el("li", { class: "error", role: "alert", text: String(error.message || error) }));
        return;
      }
      if (!offset) list.replaceChildren();
      list.querySelector(":scope > li.more-item")?.remove();
      for (const entry of listing.entries) list.append(treeItem(entry));
      const shown = listing.offset + listing.entries.length;
      if (shown < listing.total) {
        list.append(el("li", { class: "more-item" }, el("button", { class: "more", type: "button",
          text: "Show " + Math.min(pageSize, listing.total - shown) + " more of " + (listing.total - shown),
          onclick: () => loadChildren(list, path, shown) })));
      }
      list.dataset.total = listing.total;
    }
    // A name or path as `inspect` shows it: a byte that is not UTF-8, which the server sends as U+F780–U+F7FF
    // (so that the path it sends back finds the entry), as \xNN.
    function shown(text) {
      return text.replace(/[\uF780-\uF7FF]/g, (c) => "\\x" + (c.charCodeAt(0) - 0xF700).toString(16).toUpperCase());
    }
    // An entry's name: the last component of its path (the server sends paths only, as inspect --json does).
    function baseName(entry) {
      return entry.path.slice(entry.path.lastIndexOf("/") + 1);
    }
    function treeItem(entry) {
      const isDirectory = entry.kind === "directory";
      const twisty = el("span", { class: "twisty", text: isDirectory ? "▸" : "" });
      const label = shown(entry.kind === "symlink" ? baseName(entry) + " → " + entry.target : baseName(entry));
      const row = el("div", { class: "row", tabindex: "-1", dataset: { path: entry.path, kind: entry.kind } }, twisty,
        el("span", { class: "name", text: label }),
        el("span", { class: "mode", text: entry.mode }),
        el("span", { class: "size", text: isDirectory ? "" : bytes(entry.size) }));
      const item = el("li", { role: "treeitem", dataset: { path: entry.path } }, row);
      row.addEventListener("click", async () => {
        focusRow(row);
        select(entry.path);
        if (!isDirectory) return;
        let children = item.querySelector(":scope > ul");
        if (children) {
          children.remove();
          state.expanded.delete(entry.path);
          twisty.textContent = "▸";
          return;
        }
        children = el("ul", { class: "tree", dataset: { path: entry.path } });
        item.append(children);
        state.expanded.add(entry.path);
        twisty.textContent = "▾";
        try { await loadChildren(children, entry.path); } catch (error) { showError(children, error); }
      });
      return item;
    }
    // Keyboard: the tree is one tab stop (the focused row); arrows move, Home and End jump, Enter (or space)
    // opens what a click opens, right expands a folder, left collapses it or goes to the folder above.
    function focusRow(row, focus) {
      for (const other of document.querySelectorAll("#tree .row[tabindex='0']")) other.tabIndex = -1;
      row.tabIndex = 0;
      if (focus) { row.focus(); row.scrollIntoView({ block: "nearest" }); }
    }
    function treeKey(event) {
      const rows = [...document.querySelectorAll("#tree .row")];  // in the order shown: closed folders have no rows
      const index = rows.indexOf(document.activeElement);
      if (index < 0) return;
      const row = rows[index];
      const open = row.parentElement.querySelector(":scope > ul");
      let target = null;
      switch (event.key) {
        case "ArrowDown": target = rows[index + 1]; break;
        case "ArrowUp": target = rows[index - 1]; break;
        case "Home": target = rows[0]; break;
        case "End": target = rows[rows.length - 1]; break;
        case "Enter": case " ": row.click(); break;
        case "ArrowRight": if (row.dataset.kind === "directory" && !open) row.click(); else if (open) target = rows[index + 1]; break;
        case "ArrowLeft":
          if (open) row.click();
          else target = row.parentElement.parentElement.closest("li")?.querySelector(":scope > .row");
          break;
        default: return;
      }
      event.preventDefault();
      if (target) focusRow(target, true);
    }
    function select(path) {
      state.selected = path;
      for (const row of document.querySelectorAll(".row.selected")) row.classList.remove("selected");
      for (const row of document.querySelectorAll(".row")) if (row.dataset.path === path) row.classList.add("selected");
      showTab("preview");
      preview(path);
    }
    async function reloadTree() {
      const root = document.getElementById("tree");
      const stop = root.querySelector(".row[tabindex='0']")?.dataset.path;
      const hadFocus = root.contains(document.activeElement);
      await loadChildren(root, "");
      for (const path of [...state.expanded].sort()) {
        const item = [...root.querySelectorAll("li")].find((li) => li.dataset.path === path);
        if (!item) { state.expanded.delete(path); continue; }
        const children = el("ul", { class: "tree", dataset: { path } });
        item.append(children);
        item.querySelector(".twisty").textContent = "▾";
        try { await loadChildren(children, path); } catch (error) { state.expanded.delete(path); children.remove(); }
      }
      // The redrawn tree is a tab stop again: the row that was, else the selected one, else the first.
      const rows = [...root.querySelectorAll(".row")];
      const row = rows.find((r) => r.dataset.path === stop) || rows.find((r) => r.dataset.path === state.selected) || rows[0];
      if (row) focusRow(row, hadFocus);
    }

    // Preview: text by ranges with line numbers, JSON and XML re-indented, images, hex.
    async function preview(path, previewState) {
      const box = document.getElementById("preview");
      const stateParam = previewState || "current";
      let result;
      try { result = await getJSON("/api/preview", { path, state: stateParam }); } catch (error) { return showError(box, error); }
      const entry = result.entry;
      const head = el("div", { class: "preview-head" }, el("strong", { text: shown(entry.path) || "(root)" }),
        " ", el("span", { class: "muted", text: entry.kind + " · " + bytes(entry.size) + " · " + entry.mode +
          (entry.target ? " · → " + entry.target : "") + (result.pretty ? " · re-indented" : "") }));
      if (entry.kind !== "directory" && !previewState && state.info && state.info.hasVersions) {
        head.append(" ", el("button", { type: "button", class: "history", text: "History",
          "aria-label": "History of " + (shown(entry.path) || "(root)"), onclick: () => history(path) }));
      }
      box.replaceChildren(head);
      box.dataset.path = path;
      box.dataset.form = result.form;
      if (result.form === "image" || result.form === "svg") {
        box.append(el("img", { class: "preview", alt: baseName(entry), src: api("/api/raw", { path, state: stateParam }) }));
        if (result.form === "image") return;
      }
      if (result.form === "none") return;
      if (result.form === "binary") {
        const pre = el("pre", { class: "hex" });
        box.append(pre);
        appendHex(pre, result);
        return moreButton(box, result, path, stateParam, (next) => appendHex(pre, next));
      }
      const pre = el("pre", { class: "code" });
      box.append(pre);
      let line = 1;
      const append = (part) => { line = appendLines(pre, part.text, line); };
      append(result);
      if (result.truncated) {
        box.append(el("p", { class: "truncated muted", text: "Truncated: the re-indented file is longer than " +
          "4 MiB; this is its beginning." }));
      }
      moreButton(box, result, path, stateParam, append);
    }
    // Appends `text` as lines numbered from `first`; returns the next line's number. A range that ended inside a
    // line (one longer than a range) left its last line open: the next range's first piece continues it.
    function appendLines(pre, text, first) {
      if (!text) return first;
      const lines = text.split("\n");
      const open = pre.querySelector(":scope > .line[data-open]");
      if (open) { open.textContent += lines.shift(); delete open.dataset.open; }
      if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
      else if (lines.length === 1 && lines[0] === "") lines.pop();
      let n = first;
      for (const line of lines) pre.append(el("span", { class: "line", dataset: { n: String(n++) }, text: line }));
      if (!text.endsWith("\n") && pre.lastElementChild) pre.lastElementChild.dataset.open = "true";
      return n;
    }
    function appendHex(pre, part) {
      const hex = part.hex, rows = [];
      for (let i = 0; i < hex.length; i += 32) {
        const offset = (part.offset + i / 2).toString(16).padStart(8, "0");
        const chunk = hex.slice(i, i + 32);
        const pairs = chunk.match(/../g) || [];
        const ascii = pairs.map((p) => { const c = parseInt(p, 16); return c >= 32 && c < 127 ? String.fromCharCode(c) : "."; }).join("");
        rows.push(offset + "  " + pairs.join(" ").padEnd(48) + "  " + ascii);
      }
      pre.append(document.createTextNode(rows.join("\n") + "\n"));
    }
    function moreButton(box, result, path, stateParam, append) {
      if (result.next == null) return;
      const button = el("button", { type: "button", class: "more", text: "Load more" });
      let next = result.next;
      button.addEventListener("click", async () => {
        const part = await getJSON("/api/preview", { path, state: stateParam, offset: next });
        append(part);
        if (part.next == null) button.remove(); else next = part.next;
      });
      box.append(button);
    }

    // Size map: a squarified treemap of a directory's entries; a directory drills down.
    async function sizeMap(path) {
      const box = document.getElementById("sizemap");
      let map;
      try { map = await getJSON("/api/sizemap", { path }); } catch (error) { return showError(box, error); }
      state.mapPath = path;
      const crumbs = el("div", { class: "controls" });
      const parts = path ? path.split("/") : [];
      crumbs.append(el("a", { href: "#", text: state.info ? state.info.name : "(root)", onclick: (e) => { e.preventDefault(); sizeMap(""); } }));
      parts.forEach((part, index) => {
        const target = parts.slice(0, index + 1).join("/");
        crumbs.append(" / ", el("a", { href: "#", text: part, onclick: (e) => { e.preventDefault(); sizeMap(target); } }));
      });
      crumbs.append(el("span", { class: "muted", text: " " + bytes(map.totals.bytes) + " in " + map.totals.files + " files" }));
      const ns = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(ns, "svg");
      svg.setAttribute("class", "treemap");
      svg.setAttribute("viewBox", "0 0 1000 600");
      const areas = map.areas.filter((a) => a.bytes > 0);
      for (const box of squarify(areas.map((a) => a.bytes), 0, 0, 1000, 600)) {
        const area = areas[box.index];
        const rect = document.createElementNS(ns, "rect");
        for (const [k, v] of Object.entries({ x: box.x, y: box.y, width: box.w, height: box.h })) rect.setAttribute(k, v);
        rect.setAttribute("class", area.kind);
        rect.dataset.path = area.path;
        const title = document.createElementNS(ns, "title");
        title.textContent = area.path + " — " + bytes(area.bytes);
        rect.append(title);
        rect.addEventListener("click", () => { if (area.kind === "directory") sizeMap(area.path); else select(area.path); });
        svg.append(rect);
        if (box.w > 60 && box.h > 16) {
          const text = document.createElementNS(ns, "text");
          text.setAttribute("x", box.x + 4);
          text.setAttribute("y", box.y + 13);
          text.textContent = area.name;
          svg.append(text);
        }
      }
      box.replaceChildren(crumbs, svg);
    }
    function squarify(values, x, y, w, h) {
      const total = values.reduce((a, b) => a + b, 0);
      const out = [];
      if (!total) return out;
      const scale = (w * h) / total;
      const items = values.map((v, index) => ({ index, area: v * scale }));
      let rect = { x, y, w, h };
      let row = [];
      const worst = (row, side) => {
        const sum = row.reduce((a, r) => a + r.area, 0);
        const max = Math.max(...row.map((r) => r.area)), min = Math.min(...row.map((r) => r.area));
        return Math.max((side * side * max) / (sum * sum), (sum * sum) / (side * side * min));
      };
      const layout = (row) => {
        const sum = row.reduce((a, r) => a + r.area, 0);
        if (rect.w >= rect.h) {
          const width = sum / rect.h;
          let cy = rect.y;
          for (const r of row) { const hh = r.area / width; out.push({ index: r.index, x: rect.x, y: cy, w: width, h: hh }); cy += hh; }
          rect = { x: rect.x + width, y: rect.y, w: rect.w - width, h: rect.h };
        } else {
          const height = sum / rect.w;
          let cx = rect.x;
          for (const r of row) { const ww = r.area / height; out.push({ index: r.index, x: cx, y: rect.y, w: ww, h: height }); cx += ww; }
          rect = { x: rect.x, y: rect.y + height, w: rect.w, h: rect.h - height };
        }
      };
      for (const item of items) {
        const side = Math.min(rect.w, rect.h);
        if (row.length === 0 || worst(row.concat([item]), side) <= worst(row, side)) row.push(item);
        else { layout(row); row = [item]; }
      }
      if (row.length) layout(row);
      return out;
    }

    // Versions: the timeline; download, compare or restore each.
    async function versions() {
      const box = document.getElementById("versions");
      let timeline;
      try { timeline = await getJSON("/api/versions"); } catch (error) { return showError(box, error); }
      state.versions = timeline.versions;
      fillStateSelects();
      if (!timeline.versions.length) {
        box.replaceChildren(el("p", { class: "muted", text: state.info && state.info.hasVersions ? "No versions kept yet." : "An archive has no versions." }));
        return;
      }
      const rows = timeline.versions.slice().reverse().map((v) => {
        const date = v.date ? new Date(v.date * 1000).toLocaleString() : "";
        const stateText = v.state === "conflict" ? (v.resolved ? "conflict (resolved)" : "conflict") :
          v.unkeptPaths ? "saved (" + v.unkeptPaths.length + " not kept)" : v.state;
        const actions = el("td");
        if (v.state === "saved" || v.state === "conflict") {
          actions.append(el("button", { type: "button", text: "Compare with current", onclick: () => compare(String(v.id), "current") }), " ",
            el("a", { class: "button", href: api("/api/download", { state: v.id }), download: "", text: "Zip" }));
          if (timeline.restorable) actions.append(" ", el("button", { type: "button", class: "restore", dataset: { id: String(v.id) },
            text: "Restore…", onclick: (e) => confirmRestore(e.target.closest("tr"), v.id) }));
        }
        return el("tr", { dataset: { id: String(v.id) } }, el("td", { text: String(v.id) }), el("td", { text: date }),
          el("td", { text: stateText + (v.reason ? ": " + v.reason : "") }),
          el("td", { class: "number", text: v.size != null ? bytes(v.size) : "" }), el("td", { class: "changes muted" }), actions);
      });
      // A confirmation or a history the user opened stays open when the list is drawn again (a live change, a
      // second click).
      const kept = [...box.querySelectorAll(":scope > .confirm, :scope > .history")];
      box.replaceChildren(el("table", {}, el("thead", {}, el("tr", {}, ...["Id", "Date", "State", "Size", "Changes", ""].map((t) => el("th", { text: t })))),
        el("tbody", {}, ...rows)));
      box.prepend(...kept);
      await versionChanges(box);
    }
    // What changed in each version from the one before: counts as `docpkg diff --stat` has them, and the first names.
    async function versionChanges(box) {
      let changes;
      try { changes = await getJSON("/api/changes"); } catch (error) { return; }
      const signs = [["added", "+"], ["modified", "~"], ["deleted", "−"], ["renamed", "→"], ["typeChanged", "±"]];
      for (const item of changes.versions) {
        const cell = box.querySelector('tr[data-id="' + item.id + '"] td.changes');
        if (!cell) continue;
        const counts = signs.filter(([kind]) => item.counts[kind]).map(([kind, sign]) => sign + item.counts[kind] + " " + kind);
        const more = item.total > item.paths.length ? ", and " + (item.total - item.paths.length) + " more" : "";
        cell.replaceChildren(el("span", { class: "counts", text: item.total ? counts.join(", ") : "no change" }),
          item.paths.length ? el("div", { class: "paths", text: item.paths.join(", ") + more }) : null);
      }
      box.dataset.changes = "true";
    }
    // One entry's history: the versions (then the current state) in which it changed, each with its patch.
    async function history(path) {
      showTab("versions");
      const box = document.getElementById("versions");
      if (!box.querySelector("table")) versions();
      box.querySelector(":scope > .history")?.remove();
      const panel = el("section", { class: "history", dataset: { path }, "aria-label": "History of " + path },
        el("h3", { text: "History of " + path }),
        el("button", { type: "button", class: "close", text: "Close", onclick: () => panel.remove() }));
      box.prepend(panel);
      let result;
      try { result = await getJSON("/api/history", { path }); } catch (error) { return showError(panel, error); }
      if (!result.steps.length) panel.append(el("p", { class: "muted", text: "No version has it." }));
      for (const step of result.steps) {
        const item = el("div", { class: "step change", dataset: { state: step.state, change: step.change } },
          el("div", { class: "change-head" }, el("strong", { class: "step-change", text: step.change }), " " + stateName(step.state) +
            (step.size != null ? " · " + bytes(step.size) : "")));
        if (step.patch) item.append(patchView(step.patch));
        if (/\.(png|jpe?g|gif|webp|svg)$/i.test(path)) {
          const figures = el("div", { class: "side-by-side" });
          if (step.previous && step.change !== "added") figures.append(el("figure", {}, el("img", { alt: "before", src: api("/api/raw", { path, state: step.previous }) }), el("figcaption", { text: stateName(step.previous) })));
          if (step.change !== "deleted") figures.append(el("figure", {}, el("img", { alt: "after", src: api("/api/raw", { path, state: step.state }) }), el("figcaption", { text: stateName(step.state) })));
          item.append(figures);
        }
        panel.append(item);
      }
      panel.dataset.ready = "true";
    }
    function confirmRestore(row, id) {
      document.querySelector(".confirm")?.remove();
      const panel = el("div", { class: "confirm" }, "Restore version " + id + "? The current state is kept as a version. ",
        el("button", { type: "button", class: "confirm-restore", text: "Restore", onclick: async () => {
          const response = await fetch(api("/api/restore", { id }), { method: "POST", headers: { "X-Docpkg-CSRF": csrf } });
          const body = await response.json();
          document.getElementById("notice").hidden = false;
          document.getElementById("restore-note").textContent =
            response.ok ? "Restored version " + id + "." : "Not restored: " + body.error;
          if (response.ok) document.body.dataset.restored = String(id);
          panel.remove();
          versions();
        } }), " ", el("button", { type: "button", text: "Cancel", onclick: () => panel.remove() }));
      document.getElementById("versions").prepend(panel);
    }
    function fillStateSelects() {
      for (const id of ["diff-from", "diff-to"]) {
        const select = document.getElementById(id);
        const value = select.value;
        select.replaceChildren(el("option", { value: "current", text: "current" }),
          ...comparedStates().map((c) => el("option", { value: c.state, text: c.location + " (" + c.kind + ")" })),
          ...state.versions.filter((v) => v.state === "saved" || v.state === "conflict").reverse()
            .map((v) => el("option", { value: String(v.id), text: "version " + v.id })));
        if (value) select.value = value;
        else if (id === "diff-from" && comparedStates().length) select.value = comparedStates()[0].state;
      }
    }

    // Compare two states: the change list, a text diff per file, images side by side.
    async function compare(from, to) {
      showTab("diff");
      document.getElementById("diff-from").value = from;
      document.getElementById("diff-to").value = to;
      const box = document.getElementById("diff-result");
      box.replaceChildren(el("p", { class: "muted", text: "Comparing…" }));
      let diff;
      try { diff = await getJSON("/api/diff", { from, to }); } catch (error) { return showError(box, error); }
      const counts = Object.entries(diff.counts).filter(([, n]) => n).map(([k, n]) => n + " " + k).join(", ");
      box.replaceChildren(el("p", { class: "summary", text: stateName(from) + " → " + stateName(to) + ": " + (diff.identical ? "identical" : counts) }));
      for (const change of diff.changes) {
        const title = change.oldPath ? change.oldPath + " → " + change.path + " (" + change.similarity + "%)" : change.path;
        const details = change.details ? " [" + change.details.join(", ") + "]" : "";
        const item = el("div", { class: "change", dataset: { path: change.path, status: change.status } },
          el("div", { class: "change-head" }, el("span", { class: "status", text: change.status }), title + details));
        if (change.patch) item.append(patchView(change.patch));
        if (/\.(png|jpe?g|gif|webp|svg)$/i.test(change.path) && change.status !== "T") {
          const figures = el("div", { class: "side-by-side" });
          if (change.old) figures.append(el("figure", {}, el("img", { alt: "before", src: api("/api/raw", { path: change.oldPath || change.path, state: from }) }), el("figcaption", { text: stateName(from) })));
          if (change.new) figures.append(el("figure", {}, el("img", { alt: "after", src: api("/api/raw", { path: change.path, state: to }) }), el("figcaption", { text: stateName(to) })));
          item.append(figures);
        }
        box.append(item);
      }
    }
    function patchView(patch) {
      if (document.getElementById("side-by-side")?.checked) return splitView(patch);
      const pre = el("pre", { class: "patch" });
      const lines = patch.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      for (const line of lines) {
        const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "ins" : line.startsWith("-") ? "del" : "ctx";
        pre.append(el("span", { class: kind, text: line }));
      }
      return pre;
    }

    // A patch side by side: old lines on the left, new on the right, a deleted line beside the inserted line it
    // became, with the words that differ marked.
    function splitView(patch) {
      const table = el("table", { class: "patch split" },
        el("colgroup", {}, el("col", { class: "n" }), el("col"), el("col", { class: "n" }), el("col")));
      const lines = patch.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      let oldNumber = 0, newNumber = 0, deleted = [], inserted = [];
      const row = (oldLine, newLine, kind) => {
        const cells = [];
        for (const [line, side] of [[oldLine, "old"], [newLine, "new"]]) {
          const number = line == null ? "" : String(side === "old" ? ++oldNumber : ++newNumber);
          cells.push(el("td", { class: "n", text: number }), el("td", { class: side + " " + (line == null ? "empty" : kind) }));
        }
        if (kind === "change" && oldLine != null && newLine != null) {
          const [before, after] = wordDiff(oldLine, newLine);
          cells[1].append(...before);
          cells[3].append(...after);
        } else {
          if (oldLine != null) cells[1].textContent = oldLine;
          if (newLine != null) cells[3].textContent = newLine;
        }
        table.append(el("tr", {}, ...cells));
      };
      const flush = () => {
        for (let i = 0; i < Math.max(deleted.length, inserted.length); i++) row(deleted[i], inserted[i], "change");
        deleted = []; inserted = [];
      };
      for (const line of lines) {
        const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
        if (hunk) {
          flush();
          oldNumber = Number(hunk[1]) - 1; newNumber = Number(hunk[2]) - 1;
          if (oldNumber < 0) oldNumber = 0;
          if (newNumber < 0) newNumber = 0;
          table.append(el("tr", { class: "split-hunk" }, el("td", { colspan: "4", text: line })));
        } else if (line.startsWith("-")) deleted.push(line.slice(1));
        else if (line.startsWith("+")) inserted.push(line.slice(1));
        else if (line.startsWith("\\")) continue;  // "\ No newline at end of file"
        else { flush(); row(line.slice(1), line.slice(1), "same"); }
      }
      flush();
      return table;
    }
    // The two lines as runs of text, the words that differ in <mark>: a longest common subsequence of words
    // (a line of more than 400 words is marked whole).
    function wordDiff(before, after) {
      const words = (line) => line.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) || [];
      const a = words(before), b = words(after);
      if (a.length > 400 || b.length > 400) return [[el("mark", { text: before })], [el("mark", { text: after })]];
      const table = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
      for (let i = a.length - 1; i >= 0; i--)
        for (let j = b.length - 1; j >= 0; j--)
          table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      const left = [], right = [];
      const add = (runs, text, marked) => {
        const last = runs[runs.length - 1];
        if (last && last.marked === marked) last.text += text; else runs.push({ text, marked });
      };
      let i = 0, j = 0;
      while (i < a.length || j < b.length) {
        if (i < a.length && j < b.length && a[i] === b[j]) { add(left, a[i++], false); add(right, b[j++], false); }
        else if (j >= b.length || (i < a.length && table[i + 1][j] >= table[i][j + 1])) add(left, a[i++], true);
        else add(right, b[j++], true);
      }
      const nodes = (runs) => runs.map((r) => r.marked ? el("mark", { text: r.text }) : document.createTextNode(r.text));
      return [nodes(left), nodes(right)];
    }

    function showTab(name) {
      for (const button of document.querySelectorAll("nav#tabs button")) button.classList.toggle("active", button.dataset.tab === name);
      for (const tab of document.querySelectorAll(".tab")) tab.hidden = tab.id !== name;
    }

    // Live: the monitor's changes, as server-sent events.
    function listen() {
      const source = new EventSource(api("/api/events"));
      const showLive = (event) => {
        const live = JSON.parse(event.data).live;
        document.getElementById("live").textContent = live ? "● live" : "";
        if (live) document.body.dataset.live = "true";
      };
      const refresh = async () => {
        await reloadTree();
        if (state.selected != null) await preview(state.selected);
        totals();
        if (!document.getElementById("versions").hidden) versions();
      };
      // A stream that reconnects (the server ended it, or the connection dropped) may have missed changes
      // meanwhile: everything shown is read again.
      let hellos = 0;
      source.addEventListener("hello", async (event) => {
        showLive(event);
        if (hellos++ === 0) return;
        await refresh();
        document.body.dataset.reconnects = String(hellos - 1);
      });
      source.addEventListener("live", showLive);
      source.addEventListener("change", async (event) => {
        const change = JSON.parse(event.data);
        state.changes++;
        document.getElementById("notice").hidden = false;
        document.getElementById("change-note").textContent =
          "Changed on disk: " + change.changes.map((c) => c.kind + " " + c.path).join(", ");
        await refresh();
        document.body.dataset.changes = String(state.changes);
      });
    }

    async function totals() {
      try {
        const map = await getJSON("/api/sizemap", { path: "" });
        const t = map.totals;
        document.getElementById("totals").textContent = t.files + " files, " + t.directories + " directories, " +
          (t.symlinks ? t.symlinks + " links, " : "") + bytes(t.bytes);
      } catch (error) { document.getElementById("totals").textContent = ""; }
    }

    async function start() {
      try { state.info = await getJSON("/api/info"); } catch (error) { return showError(document.querySelector("main"), error); }
      document.title = shown(state.info.name) + " — docpkg serve";
      document.getElementById("title").textContent = shown(state.info.name);
      document.getElementById("kind").textContent = state.info.kind;
      document.getElementById("download").href = api("/api/download", { state: "current" });
      for (const button of document.querySelectorAll("nav#tabs button")) {
        button.addEventListener("click", () => {
          showTab(button.dataset.tab);
          if (button.dataset.tab === "sizemap") sizeMap(state.mapPath);
          if (button.dataset.tab === "versions") versions();
          if (button.dataset.tab === "diff" && !state.versions.length) versions();
        });
      }
      document.getElementById("side-by-side").addEventListener("change", () =>
        compare(document.getElementById("diff-from").value, document.getElementById("diff-to").value));
      document.getElementById("diff-run").addEventListener("click", () =>
        compare(document.getElementById("diff-from").value, document.getElementById("diff-to").value));
      let filterTimer;
      document.getElementById("filter").addEventListener("input", () => { clearTimeout(filterTimer); filterTimer = setTimeout(reloadTree, 200); });
      document.getElementById("sort").addEventListener("change", reloadTree);
      document.getElementById("tree").addEventListener("keydown", treeKey);
      if (state.info.root.kind === "directory") {
        await loadChildren(document.getElementById("tree"), "");
        const first = document.querySelector("#tree .row");
        if (first) focusRow(first);
      } else select("");
      document.body.dataset.ready = "true";
      if (state.info.live) listen();
      setTimeout(totals, 0);
    }
    start();
    """#
}
