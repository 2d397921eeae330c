/*! bankrail embedded checkout, v1. Plain JavaScript, no dependencies.

   Mount the checkout of a payment created with POST /dropin in your page:

     <div id="pay"></div>
     <script src="https://BANKRAIL/js/v1/checkout.js"></script>
     <script>
       BankrailCheckout.mount('#pay', {
         paymentId: '...', token: '...',            // the answer of POST /dropin
         onSuccess: function (e) { ... },           // e = {type, paymentId, status}
         onFailure: function (e) { ... },
         onCancel:  function (e) { ... },
         onPending: function (e) { ... }
       });
     </script>

   The checkout runs in an iframe of bankrail. Its events arrive by
   postMessage and are accepted only from bankrail's origin and from that
   iframe; bankrail sends them only to the origin of your page. Events are
   for the page: the signed notifications stay the authority. */
(function (global) {
  'use strict';

  var EVENTS = ['success', 'failure', 'cancel', 'pending'];
  var current = document.currentScript;
  var scriptOrigin = current && current.src ? new URL(current.src).origin : '';

  function handlerName(type) {
    return 'on' + type.charAt(0).toUpperCase() + type.slice(1);
  }

  function mount(target, options) {
    var el = typeof target === 'string' ? document.querySelector(target) : target;
    if (!el) throw new Error('BankrailCheckout.mount: no element ' + target);
    options = options || {};
    if (!options.paymentId || !options.token) {
      throw new Error('BankrailCheckout.mount: paymentId and token (from POST /dropin) are required');
    }
    var origin = options.baseUrl ? new URL(options.baseUrl).origin : scriptOrigin;
    var listeners = {};
    var seen = {};
    var query = new URLSearchParams({ token: options.token, origin: window.location.origin });
    var frame = document.createElement('iframe');
    frame.src = origin + '/checkout/' + encodeURIComponent(options.paymentId) + '/embed?' + query.toString();
    frame.title = options.title || 'Pay by bank';
    frame.style.border = '0';
    frame.style.width = '100%';
    frame.style.height = options.height || '720px';
    el.appendChild(frame);

    function emit(event) {
      if (seen[event.type]) return; // a reload of the final page says it again
      seen[event.type] = true;
      var fns = (listeners[event.type] || []).slice();
      if (typeof options[handlerName(event.type)] === 'function') fns.unshift(options[handlerName(event.type)]);
      for (var i = 0; i < fns.length; i++) fns[i](event);
    }

    function onMessage(ev) {
      if (ev.origin !== origin || ev.source !== frame.contentWindow) return;
      var d = ev.data;
      if (!d || d.source !== 'bankrail' || EVENTS.indexOf(d.type) < 0 || d.paymentId !== options.paymentId) return;
      emit({ type: d.type, paymentId: d.paymentId, status: d.status });
    }
    window.addEventListener('message', onMessage);

    return {
      frame: frame,
      on: function (type, fn) {
        (listeners[type] = listeners[type] || []).push(fn);
        return this;
      },
      unmount: function () {
        window.removeEventListener('message', onMessage);
        if (frame.parentNode) frame.parentNode.removeChild(frame);
      }
    };
  }

  global.BankrailCheckout = { version: '1', mount: mount };
})(window);
