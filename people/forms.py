"""The people page's form: a new account."""
from django import forms


class AccountCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="letters, digits and @ . + - _; the password is made for "
                                                         "you and shown once")
    role = forms.ChoiceField(choices=[("assessor", "Assessor"), ("organizer", "Organizer")], initial="assessor")
