// The cart's delivery slot picker (blocks/delivery-slots.liquid). No framework: a day <select>
// and native radio buttons (keyboard and screen readers for free), the app proxy's slots, and
// /cart/update.js for the choice. Without the proxy: "as soon as possible".
(function () {
  var ATTR = '_delivery_slot', LABEL = 'Delivery slot';
  function init(root) {
    if (root.dataset.sddReady) return;
    root.dataset.sddReady = '1';
    var text = JSON.parse(root.querySelector('[data-sdd-text]').textContent);
    var status = root.querySelector('[data-sdd-status]');
    var picker = root.querySelector('[data-sdd-picker]');
    var daySelect = root.querySelector('[data-sdd-day]');
    var times = root.querySelector('[data-sdd-times]');
    var locale = root.dataset.locale || 'en';
    var current = root.dataset.current;
    var data;
    function fmt(iso, opts) {
      try { return new Intl.DateTimeFormat(locale, Object.assign({ timeZone: data.timeZone }, opts)).format(new Date(iso)); }
      catch (e) { return new Intl.DateTimeFormat('en', Object.assign({ timeZone: data.timeZone }, opts)).format(new Date(iso)); }
    }
    function dayLabel(d) { return fmt(d.date + 'T12:00:00Z', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }); }
    function timeLabel(s) { return fmt(s.start, { hour: '2-digit', minute: '2-digit' }) + '–' + fmt(s.end, { hour: '2-digit', minute: '2-digit' }); }
    function save(value, label, done) {
      var attributes = {}; attributes[ATTR] = value; attributes[LABEL] = label;
      if (root.dataset.location) attributes._delivery_location = root.dataset.location;
      return fetch('/cart/update.js', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ attributes: attributes }) })
        .then(function (r) { if (!r.ok) throw new Error(String(r.status)); status.textContent = done || text.saved.replace('[slot]', label); })
        .catch(function () { status.textContent = text.saveFailed; });
    }
    function radio(value, label, note, disabled) {
      var wrap = document.createElement('label');
      wrap.className = 'sdd-slots__option' + (disabled ? ' sdd-slots__option--full' : '');
      var input = document.createElement('input');
      input.type = 'radio'; input.name = 'sdd-slot-' + root.id; input.value = value; input.disabled = disabled;
      input.checked = value === current;
      input.addEventListener('change', function () { current = value; save(value, label); });
      wrap.appendChild(input);
      wrap.appendChild(document.createTextNode(' ' + label + (note ? ' (' + note + ')' : '')));
      return wrap;
    }
    function showDay() {
      times.textContent = '';
      var day = data.days[daySelect.selectedIndex];
      // As soon as possible is today's first choice.
      if (data.asap && daySelect.selectedIndex === 0) times.appendChild(radio('asap', text.asap, '', false));
      (day ? day.slots : []).forEach(function (s) {
        var left = s.remaining === null ? '' : s.full ? text.full : text.left.replace('[count]', s.remaining);
        times.appendChild(radio(s.value, dayLabel(day) + ', ' + timeLabel(s), left, s.full));
      });
    }
    function asapOnly() {
      picker.hidden = true;
      status.textContent = text.asapOnly;
      if (current !== 'asap') { current = 'asap'; save('asap', text.asap, text.asapOnly); }
    }
    var url = root.dataset.proxy + (root.dataset.location ? '?location=' + encodeURIComponent(root.dataset.location) : '');
    var ctl = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (ctl) ctl.abort(); }, 5000);
    fetch(url, { headers: { Accept: 'application/json' }, signal: ctl && ctl.signal })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
      .then(function (json) {
        clearTimeout(timer);
        data = json;
        if (!data.enabled || !data.days.length) return asapOnly();
        data.days.forEach(function (d, i) {
          var o = document.createElement('option'); o.value = d.date; o.textContent = dayLabel(d); daySelect.appendChild(o);
          if (d.slots.some(function (s) { return s.value === current; })) daySelect.selectedIndex = i;
        });
        daySelect.addEventListener('change', showDay);
        showDay();
        picker.hidden = false;
        status.textContent = text.choose;
      })
      .catch(function () { clearTimeout(timer); asapOnly(); });
  }
  function all() { Array.prototype.forEach.call(document.querySelectorAll('[data-sdd-slots]'), function (el, i) { if (!el.id) el.id = 'sdd-slots-' + i; init(el); }); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all); else all();
  // The theme editor adds and moves blocks without a page load.
  document.addEventListener('shopify:section:load', all);
})();
