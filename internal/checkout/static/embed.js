/* bankrail embedded checkout, inside the frame: the final page tells the
   merchant's page the outcome. The message goes to the origin the checkout
   was mounted for, and to no other. */
(function () {
  'use strict';
  var el = document.getElementById('bankrail-event');
  if (!el || window.parent === window) return;
  var type = el.getAttribute('data-event');
  if (['success', 'failure', 'cancel', 'pending'].indexOf(type) < 0) return;
  window.parent.postMessage({
    source: 'bankrail',
    type: type,
    paymentId: el.getAttribute('data-payment'),
    status: el.getAttribute('data-status')
  }, el.getAttribute('data-origin'));
})();
