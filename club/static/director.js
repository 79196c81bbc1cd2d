// The director's page: a step that cannot be taken back (end the period, publish) asks first,
// in words that say which period or which event (the button's data-confirm).
document.addEventListener('submit', (e) => {
  const button = e.submitter || e.target.querySelector('[data-confirm]');
  const question = button && button.dataset ? button.dataset.confirm : '';
  if (question && !window.confirm(question)) e.preventDefault();
});
